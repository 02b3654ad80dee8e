import { afterEach, describe, expect, it } from "vitest";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const DM_KEY = "agent:main:telegram:dm:100";
const RATE_NOTICE = "You're sending messages faster than I can answer (limit 20 per minute). I'll skip this one; try again in a moment.";
let h: GatewayHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(env: Record<string, string>): Promise<GatewayHarness> {
  h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7,telegram:8", ...env });
  return h;
}

describe("bounded intake through the real pipeline", () => {
  it("answers at most 20 of 25 messages sent within a minute, and says so once", async () => {
    // Reflection off: its background reviews would be model requests that are not runs.
    const gw = await start({ HERMES_MAX_QUEUED: "off", HERMES_REFLECTION: "off" });
    gw.llm.enqueue(...Array.from({ length: 25 }, (_, i) => ({ kind: "text" as const, text: `answer ${i + 1}` })));
    for (let i = 1; i <= 25; i += 1) await gw.adapter.userSays(`message ${i}`);
    await gw.gateway.waitIdle(DM_KEY);

    const texts = gw.adapter.texts();
    expect(gw.llm.requests.length).toBeLessThanOrEqual(20);
    expect(texts.filter((text) => text.startsWith("answer "))).toHaveLength(gw.llm.requests.length);
    expect(texts.filter((text) => text === RATE_NOTICE)).toHaveLength(1);
    const statuses = (await gw.gateway.store.inbound.recent(50)).map((record) => record.status);
    expect(statuses.filter((status) => status === "answered")).toHaveLength(gw.llm.requests.length);
    expect(statuses.filter((status) => status === "ignored")).toHaveLength(25 - gw.llm.requests.length);
  });

  it("keeps commands usable and other people's messages answered while someone is over the rate", async () => {
    const gw = await start({ HERMES_RATE_LIMIT: "2", HERMES_MAX_QUEUED: "off" });
    gw.llm.enqueue(...Array.from({ length: 3 }, (_, i) => ({ kind: "text" as const, text: `answer ${i + 1}` })));
    for (let i = 1; i <= 3; i += 1) await gw.adapter.userSays(`message ${i}`);
    await gw.adapter.userSays("/status");
    await gw.gateway.waitIdle(DM_KEY);
    await gw.adapter.userSays("hello from Bob", { user: { id: "8", name: "Bob" }, chat: { id: "200", type: "dm" } });
    await gw.gateway.waitIdle("agent:main:telegram:dm:200");

    expect(gw.llm.requests).toHaveLength(3);
    expect(gw.adapter.texts("100")).toEqual(expect.arrayContaining([expect.stringContaining("limit 2 per minute"), expect.stringMatching(/^Conversation /)]));
    expect(gw.adapter.texts("200")).toEqual(["answer 3"]);
  });

  it("skips messages beyond HERMES_MAX_QUEUED waiting in one conversation, telling the sender once", async () => {
    const gw = await start({ HERMES_MAX_QUEUED: "2" });
    gw.llm.enqueue({ kind: "hang" });
    await gw.adapter.userSays("long task");
    for (let i = 0; i < 100 && gw.llm.requests.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    await gw.adapter.userSays("waits its turn");
    await gw.adapter.userSays("one too many");
    await gw.adapter.userSays("and another");
    await gw.adapter.userSays("/stop");
    await gw.gateway.waitIdle(DM_KEY);

    const texts = gw.adapter.texts();
    expect(texts.filter((text) => text.startsWith("You already have 2 messages waiting"))).toHaveLength(1);
    expect(texts).toContain("Stopped. I also dropped 1 queued message.");
    expect(gw.llm.requests).toHaveLength(1);
  });
});

describe("daily budget through the real pipeline", () => {
  it("answers without calling the model once a user's spend today reaches the budget, and /usage shows it", async () => {
    // 1,000 USD per million tokens: 15 tokens cost $0.015, well over a $0.001 budget.
    const gw = await start({ HERMES_DAILY_BUDGET_USD: "0.001", HERMES_MODEL_PRICE: "1000,1000" });
    gw.llm.enqueue({ kind: "text", text: "first answer", usage: { prompt: 10, completion: 5 } }, { kind: "text", text: "never sent" });
    await gw.adapter.userSays("first question");
    await gw.gateway.waitIdle(DM_KEY);
    await gw.adapter.userSays("second question");
    await gw.gateway.waitIdle(DM_KEY);
    await gw.adapter.userSays("/usage");
    await gw.gateway.waitIdle(DM_KEY);

    const [first, refused, usage] = gw.adapter.texts();
    expect(first).toBe("first answer");
    expect(refused).toMatch(/^You've reached today's budget \(\$0\.0150 of \$0\.0010\), so I can't answer until it resets at 00:00 UTC, in \d+ (h|min)( \d+ min)?\.$/);
    expect(usage).toMatch(/^Today: \$0\.0150 of \$0\.0010 \(reached; resets at 00:00 UTC, in /);
    expect(usage).toContain("All your conversations: 1 answer,");
    expect(gw.llm.requests).toHaveLength(1);
  });

  it("does not count one user's spend against another's budget", async () => {
    const gw = await start({ HERMES_DAILY_BUDGET_USD: "0.001", HERMES_MODEL_PRICE: "1000,1000" });
    gw.llm.enqueue({ kind: "text", text: "for Ada", usage: { prompt: 10, completion: 5 } }, { kind: "text", text: "for Bob", usage: { prompt: 10, completion: 5 } });
    await gw.adapter.userSays("hi");
    await gw.gateway.waitIdle(DM_KEY);
    await gw.adapter.userSays("hi", { user: { id: "8", name: "Bob" }, chat: { id: "200", type: "dm" } });
    await gw.gateway.waitIdle("agent:main:telegram:dm:200");
    expect(gw.adapter.texts()).toEqual(["for Ada", "for Bob"]);
    expect(gw.llm.requests).toHaveLength(2);
  });
});
