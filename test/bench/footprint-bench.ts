import { existsSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@hermes/store";
import BetterSqlite3 from "better-sqlite3";
import { startDiscordFake } from "../fakes/discord/index.js";
import { startLlmServer } from "../fakes/llm-server.js";
import { startFakeSlack } from "../fakes/slack/fake-slack.js";
import { startFakeTelegram } from "../fakes/telegram/index.js";
import { startApp, type AppProcess } from "../support/app-process.js";
import { QUICK, seededRandom, wordSource } from "./bench-words.js";
import type { BenchFigure } from "./gateway-bench.js";

const SETTLE_MS = QUICK ? 3_000 : 8_000;
const PROBE = fileURLToPath(new URL("./loop-delay-probe.mjs", import.meta.url));
const TELEGRAM_TOKEN = "123456:BENCH-footprint";

function rssMiB(pid: number | undefined): number {
  const line = readFileSync(`/proc/${pid ?? 0}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? NaN) / 1024;
}

/** `sessions` conversations of 20 messages each, written straight into the state database before the gateway starts. */
async function seedSessions(stateDb: string, sessions: number): Promise<void> {
  await (await openStore({ file: stateDb })).close();
  const words = wordSource(seededRandom(5));
  const sqlite = new BetterSqlite3(stateDb);
  const insertSession = sqlite.prepare(
    `INSERT INTO sessions (id, key, platform, chat_id, chat_type, user_id, title, status, created_at, updated_at) VALUES (?, ?, 'telegram', ?, 'dm', ?, ?, 'active', ?, ?)`,
  );
  const insertMessage = sqlite.prepare(`INSERT INTO messages (session_id, seq, role, content, text, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const now = Date.now();
  sqlite.transaction(() => {
    for (let s = 0; s < sessions; s += 1) {
      const id = `seeded-${s}`;
      insertSession.run(id, `agent:main:telegram:dm:${s}`, String(s), String(s), words.sentence(3), now - s * 1_000, now - s * 1_000);
      for (let seq = 0; seq < 20; seq += 1) {
        const role = seq % 2 === 0 ? "user" : "assistant";
        const text = words.sentence(20);
        insertMessage.run(id, seq, role, JSON.stringify({ role, content: text, timestamp: now }), text, Math.ceil(text.length / 4), now);
      }
    }
  }).immediate();
  sqlite.close();
}

interface Footprint {
  rssMiB: number;
  /** V8's heap in use and memory held outside it (Buffers, native modules' allocations), from the process itself. */
  heapUsedMiB: number;
  externalMiB: number;
}

async function memoryOf(app: AppProcess, file: string): Promise<{ heapUsed: number; external: number }> {
  app.kill("SIGUSR2");
  for (let i = 0; i < 200 && !existsSync(file); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  return (JSON.parse(readFileSync(file, "utf8")) as { memory: { heapUsed: number; external: number } }).memory;
}

/** Idle RSS of the compiled gateway (what `npm start` runs) with Telegram, Discord and Slack (Socket Mode) on stand-ins. */
async function idleFootprint(seededSessions: number): Promise<Footprint> {
  const home = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-footprint-"));
  const telegram = await startFakeTelegram({ token: TELEGRAM_TOKEN });
  const discord = await startDiscordFake();
  const slack = await startFakeSlack();
  const llm = await startLlmServer();
  if (seededSessions > 0) await seedSessions(path.join(home, "state", "state.db"), seededSessions);
  const probeFile = path.join(home, "probe.json");
  const app = startApp("gateway", {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "bench-key",
    // A free port: the default 8642 may be taken by a gateway that is really running on this machine.
    HERMES_HTTP_PORT: "0",
    HERMES_ALLOWED_USERS: "telegram:*,discord:*,slack:*",
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    DISCORD_BOT_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    NODE_OPTIONS: `--import ${PROBE}`,
    BENCH_LOOP_DELAY_FILE: probeFile,
  });
  try {
    await app.waitFor("gateway started", 30_000);
    for (const platform of ["telegram", "discord", "slack"]) {
      if (!app.stderr().includes(platform)) throw new Error(`the gateway did not start ${platform}: ${app.stderr().slice(-2_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const rss = rssMiB(app.child.pid);
    rmSync(probeFile, { force: true });
    const memory = await memoryOf(app, probeFile);
    return { rssMiB: rss, heapUsedMiB: memory.heapUsed / 1024 / 1024, externalMiB: memory.external / 1024 / 1024 };
  } finally {
    app.kill("SIGKILL");
    await app.exited;
    await Promise.all([telegram.close(), discord.close(), slack.close(), llm.close()]);
    await rm(home, { recursive: true, force: true });
  }
}

export async function footprintBenchmark(): Promise<BenchFigure[]> {
  const sessions = QUICK ? 2_000 : 10_000;
  const empty = await idleFootprint(0);
  const seeded = await idleFootprint(sessions);
  return [
    { name: "idle RSS, Telegram + Discord + Slack on stand-ins", value: empty.rssMiB, unit: "MiB", target: { max: 150 } },
    { name: "idle, same: V8 heap used", value: empty.heapUsedMiB, unit: "MiB" },
    { name: "idle, same: external (Buffers, native)", value: empty.externalMiB, unit: "MiB" },
    { name: `idle RSS, same, ${sessions.toLocaleString("en")} stored sessions`, value: seeded.rssMiB, unit: "MiB", target: { max: 150 } },
    { name: `idle, ${sessions.toLocaleString("en")} sessions: V8 heap used`, value: seeded.heapUsedMiB, unit: "MiB" },
  ];
}
