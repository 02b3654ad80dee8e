import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMetricsRegistry, silentLogger, type MetricsRegistry } from "@hermes/agent";
import { createTelegramAdapter } from "@hermes/telegram";
import { startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startGatewayHarness, type GatewayHarness, type HarnessOptions } from "./support/gateway-harness.js";

const DM_KEY = "agent:main:telegram:dm:100";
let h: GatewayHarness | undefined;
let telegram: FakeTelegram | undefined;

afterEach(async () => {
  await h?.close();
  await telegram?.close();
  h = telegram = undefined;
});

async function start(env: Record<string, string>, options: HarnessOptions = {}): Promise<{ gw: GatewayHarness; scrape: () => Promise<string> }> {
  const registry: MetricsRegistry = createMetricsRegistry();
  h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION: "off", ...env }, undefined, { ...options, metrics: registry });
  return { gw: h, scrape: () => registry.renderPrometheus() };
}

/** The value of one sample line of the exposition, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("/metrics shows the gateway's bounded intake, budgets and role", () => {
  it("counts messages skipped over HERMES_RATE_LIMIT by platform and reason", async () => {
    const { gw, scrape } = await start({ HERMES_RATE_LIMIT: "2", HERMES_MAX_QUEUED: "off" });
    gw.llm.enqueue({ kind: "text", text: "answer 1" }, { kind: "text", text: "answer 2" });
    for (let i = 1; i <= 5; i += 1) await gw.adapter.userSays(`message ${i}`);
    await gw.gateway.waitIdle(DM_KEY);

    const text = await scrape();
    expect(sample(text, 'hermes_intake_skipped_total{platform="telegram",reason="rate_limited"}')).toBe(3);
    expect(sample(text, 'hermes_intake_skipped_total{platform="telegram",reason="queue_full"}')).toBeUndefined();
    expect(sample(text, 'hermes_gateway_messages_received_total{platform="telegram"}')).toBe(5);
  });

  it("counts messages skipped over HERMES_MAX_QUEUED as queue_full", async () => {
    const { gw, scrape } = await start({ HERMES_MAX_QUEUED: "2", HERMES_RATE_LIMIT: "off" });
    gw.llm.enqueue({ kind: "hang" });
    await gw.adapter.userSays("long task");
    for (let i = 0; i < 100 && gw.llm.requests.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    await gw.adapter.userSays("waits its turn");
    await gw.adapter.userSays("one too many");
    await gw.adapter.userSays("and another");
    await gw.adapter.userSays("/stop");
    await gw.gateway.waitIdle(DM_KEY);

    expect(sample(await scrape(), 'hermes_intake_skipped_total{platform="telegram",reason="queue_full"}')).toBe(2);
  });

  it("counts messages answered without the model over the daily budget (embedded mode runs them here)", async () => {
    // 1,000 USD per million tokens: 15 tokens cost $0.015, well over a $0.001 budget.
    const { gw, scrape } = await start({ HERMES_DAILY_BUDGET_USD: "0.001", HERMES_MODEL_PRICE: "1000,1000" });
    gw.llm.enqueue({ kind: "text", text: "first answer", usage: { prompt: 10, completion: 5 } });
    expect(sample(await scrape(), 'hermes_budget_refusals_total{platform="telegram"}')).toBeUndefined();
    await gw.adapter.userSays("first question");
    await gw.gateway.waitIdle(DM_KEY);
    await gw.adapter.userSays("second question");
    await gw.gateway.waitIdle(DM_KEY);
    await gw.adapter.userSays("third question");
    await gw.gateway.waitIdle(DM_KEY);

    expect(gw.llm.requests).toHaveLength(1);
    expect(sample(await scrape(), 'hermes_budget_refusals_total{platform="telegram"}')).toBe(2);
  });

  it("shows the embedded gateway as active, with no relay backlog series (there is no Redis)", async () => {
    const { scrape } = await start({});
    const text = await scrape();
    expect(sample(text, "hermes_gateway_active")).toBe(1);
    expect(text).toContain("# HELP hermes_gateway_active ");
    expect(text).not.toContain("hermes_run_queue_kept");
  });

  it("counts a reply Telegram rate-limited (429 with retry_after) as deferred, and the reply still arrives", async () => {
    const fake = await startFakeTelegram();
    telegram = fake;
    const { gw, scrape } = await start(
      { TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.apiRoot, HERMES_ALLOWED_USERS: "*" },
      { adapters: (config) => [createTelegramAdapter(config.telegram ?? { token: fake.token, apiRoot: fake.apiRoot }, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments") })] },
    );
    gw.llm.enqueue({ kind: "text", text: "worth the wait" });
    fake.floodWait("sendMessage", 1);
    const { update, message } = fake.userWrites({ from: { id: 3001, first_name: "Flo" }, text: "hello" });
    await fake.waitForConfirmation(update);
    await gw.gateway.waitIdle(`agent:main:telegram:dm:${message.chat.id}`);

    const refused = fake.calls.filter((call) => call.method === "sendMessage" && call.outcome === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(fake.sentTo(message.chat.id).map((sent) => sent.visible)).toEqual(["worth the wait"]);
    expect(sample(await scrape(), 'hermes_deliveries_deferred_total{platform="telegram"}')).toBe(refused);
  });
});
