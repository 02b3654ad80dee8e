import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { startLlmServer, type LlmServer, type RecordedRequest, type ScriptedReply } from "../fakes/llm-server.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/index.js";
import { startApp, type AppProcess } from "./app-process.js";
import { startRedis, type TestRedis } from "./redis-server.js";
import { createTestDatabase, type TestDatabase } from "./test-database.js";

/**
 * "Machines" of one deployment as docker-compose.yml runs them: gateways and workers, each on an empty HERMES_HOME of
 * its own below `root`, sharing only Redis and a PostgreSQL database (HERMES_DATABASE_URL), with a fake Telegram and
 * a scripted model.
 */
export interface SharedMachines {
  readonly llm: LlmServer;
  readonly telegram: FakeTelegram;
  readonly root: string;
  /** The deployment's PostgreSQL database (HERMES_DATABASE_URL of every machine). */
  readonly databaseUrl: string;
  /** Starts `role` on the machine `name` (home `<root>/<name>/hermes`) and waits for `ready` in its log; `env` is that machine's own. */
  start(role: "gateway" | "worker", name: string, ready: string, env?: Record<string, string>): Promise<AppProcess>;
  /** SIGTERM, and it must exit 0. */
  stop(app: AppProcess): Promise<void>;
  /** SIGKILL, as a machine that dies. */
  kill(app: AppProcess): Promise<void>;
  /** Ends every process still running, then the servers, and removes the folders. */
  close(): Promise<void>;
}

export interface SharedMachinesOptions {
  token: string;
  reply: (request: RecordedRequest) => ScriptedReply;
  /** Settings every machine gets besides the shared ones. */
  env?: Record<string, string>;
}

export async function startSharedMachines(options: SharedMachinesOptions): Promise<SharedMachines> {
  const llm = await startLlmServer({ defaultReply: options.reply });
  const telegram = await startFakeTelegram({ token: options.token });
  const redis: TestRedis = await startRedis();
  const database: TestDatabase = await createTestDatabase();
  const root = await mkdtemp(path.join(os.tmpdir(), "hermes-machines-"));
  const apps: AppProcess[] = [];

  const settingsOf = (name: string): Record<string, string> => ({
    HOME: path.join(root, name),
    HERMES_HOME: path.join(root, name, "hermes"),
    HERMES_DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "test-key",
    HERMES_HTTP_PORT: "0",
    HERMES_ALLOWED_USERS: "telegram:*",
    HERMES_REFLECTION: "off",
    TELEGRAM_BOT_TOKEN: options.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    ...options.env,
  });
  const end = async (app: AppProcess, signal: NodeJS.Signals) => {
    app.kill(signal);
    const exited = await app.exited;
    apps.splice(apps.indexOf(app), 1);
    return exited;
  };

  return {
    llm,
    telegram,
    root,
    databaseUrl: database.url,
    async start(role, name, ready, env = {}) {
      const app = startApp(role, { ...settingsOf(name), ...env });
      apps.push(app);
      await app.waitFor(ready, 60_000);
      return app;
    },
    async stop(app) {
      expect(await end(app, "SIGTERM")).toEqual({ code: 0, signal: null });
    },
    async kill(app) {
      await end(app, "SIGKILL");
    },
    async close() {
      for (const app of [...apps]) await end(app, "SIGKILL");
      await telegram.close();
      await llm.close();
      await redis.stop();
      await database.drop();
      await rm(root, { recursive: true, force: true });
    },
  };
}
