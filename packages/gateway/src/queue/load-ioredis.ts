import { createRequire } from "node:module";
import type * as IoRedis from "ioredis";

const requireHere = createRequire(import.meta.url);

/**
 * ioredis, loaded when the first Redis connection is made rather than at import: every process imports this package's
 * Redis-backed classes, but an embedded gateway (no REDIS_URL) never connects and so never pays for the client.
 * ioredis is CommonJS only, so `require` hands out the same module instance an `import` would.
 */
export function ioredis(): typeof IoRedis {
  return requireHere("ioredis") as typeof IoRedis;
}
