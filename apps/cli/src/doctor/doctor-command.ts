import { tryOpenStore } from "@hermes/store";
import { NO_MODEL_MESSAGE, bootstrap, resolveModelName, type GatewayConfig } from "@hermes/gateway";
import { Redis } from "ioredis";

interface DoctorIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

type Check = { name: string; ok: boolean; detail: string };

/**
 * `hermes doctor`: validates the configuration and checks what the bot depends on — the state database, the model
 * settings, Redis when configured — printing one line per check (secrets never shown). Exit 0 when all pass.
 */
export async function runDoctor(io: DoctorIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli" });
  if (!boot.ok) return boot.exitCode;
  const { config, logger } = boot.value;
  const checks: Check[] = [];

  const opened = await tryOpenStore({ file: config.paths.stateDb, logger });
  checks.push(opened.ok ? { name: "state database", ok: true, detail: config.paths.stateDb } : { name: "state database", ok: false, detail: opened.error.message });
  if (opened.ok) await opened.store.close();

  checks.push(modelCheck(config));
  if (config.redisUrl) checks.push(await redisCheck(config.redisUrl));
  const platforms = [config.telegram && "telegram", config.discord && "discord", config.slack && "slack"].filter(Boolean);
  checks.push({ name: "platforms", ok: true, detail: platforms.length > 0 ? platforms.join(", ") : "none configured (npm run chat still works)" });
  checks.push({ name: "tools", ok: true, detail: config.tools.join(", ") });
  checks.push({ name: "queue", ok: true, detail: config.redisUrl ? "BullMQ (npm run worker processes run the agent)" : `in-process, ${config.workers} at a time` });

  for (const check of checks) io.stdout.write(`${check.ok ? "ok  " : "FAIL"}  ${check.name.padEnd(15)} ${check.detail}\n`);
  const failed = checks.filter((check) => !check.ok).length;
  io.stdout.write(failed === 0 ? "\nEverything needed to start is in place.\n" : `\n${failed} problem(s) found.\n`);
  return failed === 0 ? 0 : 1;
}

function modelCheck(config: GatewayConfig): Check {
  if (!config.model) return { name: "model", ok: config.redisUrl !== undefined, detail: config.redisUrl ? "not set here (the workers need it)" : NO_MODEL_MESSAGE.split("\n")[0] ?? "" };
  const resolved = resolveModelName(config, config.model.model);
  if (!resolved.ok) return { name: "model", ok: false, detail: resolved.error };
  const model = resolved.binding.model;
  return { name: "model", ok: true, detail: `${model.provider}/${model.id} (context ${model.contextWindow.toLocaleString("en-US")} tokens)${config.model.baseUrl ? ` at ${config.model.baseUrl}` : ""}` };
}

async function redisCheck(url: string): Promise<Check> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3_000, retryStrategy: () => null });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    const pong = await redis.ping();
    return { name: "redis", ok: pong === "PONG", detail: `reachable (${new URL(url).host})` };
  } catch (error) {
    return { name: "redis", ok: false, detail: `not reachable: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    redis.disconnect();
  }
}
