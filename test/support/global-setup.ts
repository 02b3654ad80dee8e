import { ensurePostgresServer, systemPostgresSetupDeps } from "./postgres-setup.js";
import { ensureRedisServer, systemRedisSetupDeps } from "./redis-setup.js";

/**
 * Runs once per `vitest run`: the Redis- and PostgreSQL-backed suites need a redis-server and PostgreSQL's server
 * binaries, so settle that before any starts.
 */
export default async function setup(): Promise<void> {
  const redisDeps = systemRedisSetupDeps();
  const redis = await ensureRedisServer(redisDeps);
  // A thrown error would make vitest add a stack and a misleading "No test files found"; one line says what to do.
  if (!redis.ok) failWith(redis.line, redisDeps.writeLine);
  const postgresDeps = systemPostgresSetupDeps();
  const postgres = await ensurePostgresServer(postgresDeps);
  if (!postgres.ok) failWith(postgres.line, postgresDeps.writeLine);
}

function failWith(line: string, writeLine: (line: string) => void): never {
  writeLine(line);
  process.exit(1);
}
