import { ensureRedisServer, systemRedisSetupDeps } from "./redis-setup.js";

/** Runs once per `vitest run`: the Redis-backed suites need a redis-server binary, so settle that before any starts. */
export default async function setup(): Promise<void> {
  const deps = systemRedisSetupDeps();
  const result = await ensureRedisServer(deps);
  if (result.ok) return;
  // A thrown error would make vitest add a stack and a misleading "No test files found"; one line says what to do.
  deps.writeLine(result.line);
  process.exit(1);
}
