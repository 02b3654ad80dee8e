import { afterEach, describe, expect, it } from "vitest";
import { PairingService } from "@hermes/gateway";
import { silentLogger } from "@hermes/agent";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const DM_KEY = "agent:main:telegram:dm:100";
let h: GatewayHarness;

afterEach(async () => {
  await h?.close();
});

async function start(env: Record<string, string> = {}): Promise<GatewayHarness> {
  h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", ...env });
  return h;
}

function lastUserText(request: { messages: unknown[] } | undefined): string {
  const users = (request?.messages ?? []).filter((m): m is { role: string; content: unknown } => (m as { role: string }).role === "user");
  return JSON.stringify(users.at(-1)?.content);
}

describe("gateway core with a platform adapter", () => {
  it("answers a DM through a tool call and keeps the conversation", async () => {
    await start();
    h.llm.enqueue(
      { kind: "tools", calls: [{ name: "think", arguments: { thought: "easy" } }] },
      { kind: "text", text: "It is 4." },
      { kind: "text", text: "It is 40." },
    );
    await h.adapter.userSays("What is 2+2?");
    await h.gateway.waitIdle(DM_KEY);
    await h.adapter.userSays("Times ten?");
    await h.gateway.waitIdle(DM_KEY);
    expect(h.adapter.texts()).toEqual(["It is 4.", "It is 40."]);
    expect(JSON.stringify(h.llm.requests[2]?.messages)).toContain("What is 2+2?");
    expect(h.adapter.typing.length).toBeGreaterThan(0);
  });

  it("keeps history across a restart", async () => {
    await start();
    h.llm.enqueue({ kind: "text", text: "Noted: 42." }, { kind: "text", text: "You said 42." });
    await h.adapter.userSays("Remember 42");
    await h.gateway.waitIdle(DM_KEY);
    await h.restart();
    await h.adapter.userSays("What did I say?");
    await h.gateway.waitIdle(DM_KEY);
    expect(h.adapter.texts()).toEqual(["You said 42."]);
    expect(JSON.stringify(h.llm.requests[1]?.messages)).toContain("Remember 42");
  });

  it("answers a message whose run was cut short by a shutdown after the restart", async () => {
    await start();
    h.llm.enqueue({ kind: "hang" }, { kind: "text", text: "Answered after the restart." });
    await h.adapter.userSays("long question");
    for (let i = 0; i < 100 && h.llm.requests.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    await h.restart({ drainMs: 0 });
    await h.gateway.waitIdle(DM_KEY);
    expect(h.adapter.texts()).toEqual(["Answered after the restart."]);
    expect(h.llm.requests).toHaveLength(2);
  });

  it("answers a re-delivered message once", async () => {
    await start();
    h.llm.enqueue({ kind: "text", text: "once" }, { kind: "text", text: "twice" });
    const first = await h.adapter.userSays("hi");
    await h.adapter.userSays("hi", { messageId: first.messageId });
    await h.gateway.waitIdle(DM_KEY);
    expect(h.adapter.texts()).toEqual(["once"]);
    expect(h.llm.requests).toHaveLength(1);
  });

  it("gives an unknown user a pairing code, and answers once the operator approves it", async () => {
    await start({ HERMES_ALLOWED_USERS: "" });
    await h.adapter.userSays("hello?", { user: { id: "99", name: "Stranger" }, chat: { id: "99", type: "dm" } });
    await h.gateway.waitIdle("agent:main:telegram:dm:99");
    const reply = h.adapter.texts("99").join("\n");
    const code = /pairing code: ([A-Z0-9]{8})/i.exec(reply)?.[1];
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(reply).toContain(`hermes pairing approve telegram ${code}`);
    expect(h.llm.requests).toHaveLength(0);

    const pairing = new PairingService({ store: h.gateway.store.pairing, logger: silentLogger });
    const approved = await pairing.approve("telegram", code ?? "");
    expect(approved.ok).toBe(true);
    h.llm.enqueue({ kind: "text", text: "Welcome!" });
    await h.adapter.userSays("hello again", { user: { id: "99", name: "Stranger" }, chat: { id: "99", type: "dm" } });
    await h.gateway.waitIdle("agent:main:telegram:dm:99");
    expect(h.adapter.texts("99").at(-1)).toBe("Welcome!");
  });

  it("ignores group messages that do not address the bot and answers a mention as a reply", async () => {
    await start();
    const group = { chat: { id: "-5", type: "group" as const } };
    await h.adapter.userSays("just chatting", group);
    h.llm.enqueue({ kind: "text", text: "You called?" });
    const mention = await h.adapter.userSays("@hermes_bot help me", { ...group, mentionedBot: true });
    await h.gateway.waitIdle("agent:main:telegram:group:-5:7");
    expect(h.llm.requests).toHaveLength(1);
    expect(h.adapter.sent.map((s) => [s.message.text, s.target.replyToMessageId])).toEqual([["You called?", mention.messageId]]);
  });

  it("/retry in a group answers the last message again", async () => {
    await start();
    const group = { chat: { id: "-7", type: "group" as const } };
    h.llm.enqueue({ kind: "text", text: "first try" }, { kind: "text", text: "second try" });
    await h.adapter.userSays("@bot what now?", { ...group, mentionedBot: true });
    await h.gateway.waitIdle("agent:main:telegram:group:-7:7");
    await h.adapter.userSays("/retry", group);
    await h.gateway.waitIdle("agent:main:telegram:group:-7:7");
    expect(h.adapter.texts("-7")).toEqual(["first try", "Retrying your last message…", "second try"]);
  });

  it("does not show unaddressed group chatter to hooks (no block notice for it)", async () => {
    await start({ HERMES_BLOCKED_KEYWORDS: "" });
    process.env.HERMES_BLOCKED_KEYWORDS = "banana";
    try {
      await h.adapter.userSays("I like banana bread", { chat: { id: "-8", type: "group" } });
      await h.gateway.waitIdle("agent:main:telegram:group:-8:7");
    } finally {
      delete process.env.HERMES_BLOCKED_KEYWORDS;
    }
    expect(h.adapter.sent).toEqual([]);
  });

  it("answers every group message after /respond all", async () => {
    await start();
    const group = { chat: { id: "-6", type: "group" as const } };
    await h.adapter.userSays("/respond all", group);
    h.llm.enqueue({ kind: "text", text: "I heard you." });
    await h.adapter.userSays("no mention here", group);
    await h.gateway.waitIdle("agent:main:telegram:group:-6:7");
    expect(h.adapter.texts("-6")).toEqual(["OK: I'll answer every message in this chat.", "I heard you."]);
  });

  it("queues a message sent during a run, acknowledges it, and answers in order", async () => {
    await start();
    h.llm.enqueue({ kind: "text", text: "first answer", chunks: 5, delayMsBetweenChunks: 80 }, { kind: "text", text: "second answer" });
    await h.adapter.userSays("first");
    await h.adapter.userSays("second");
    await h.gateway.waitIdle(DM_KEY);
    expect(h.adapter.texts()).toEqual([expect.stringContaining("I'm still answering"), "first answer", "second answer"]);
    expect(lastUserText(h.llm.requests[1])).toContain("second");
  });

  it("/stop interrupts the run and drops queued messages", async () => {
    await start();
    h.llm.enqueue({ kind: "hang" });
    await h.adapter.userSays("long task");
    for (let i = 0; i < 100 && h.llm.requests.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    await h.adapter.userSays("and then this");
    await h.adapter.userSays("/stop");
    await h.gateway.waitIdle(DM_KEY);
    const texts = h.adapter.texts();
    expect(texts).toContain("Stopped. I also dropped 1 queued message.");
    expect(h.llm.requests).toHaveLength(1);
  });

  it("answers commands: /help, /whoami, /status, /model, /usage and unknown ones", async () => {
    await start({ HERMES_BOT_NAME: "hermes_bot" });
    h.llm.enqueue({ kind: "text", text: "hi there" });
    await h.adapter.userSays("hello");
    await h.gateway.waitIdle(DM_KEY);
    for (const command of ["/help", "/whoami@hermes_bot", "/status", "/model", "/usage", "/frobnicate"]) await h.adapter.userSays(command);
    await h.gateway.waitIdle(DM_KEY);
    const [, help, whoami, status, model, usage, unknown] = h.adapter.texts();
    expect(help).toContain("/new");
    expect(help).toContain("/compress");
    expect(whoami).toContain("telegram user 7");
    expect(whoami).toContain(DM_KEY);
    expect(status).toMatch(/Messages: 2; model: scripted-model; idle/);
    expect(model).toBe("Model: scripted-model.");
    expect(usage).toMatch(/This conversation: 1 answer/);
    expect(unknown).toContain("/help");
    expect(h.llm.requests).toHaveLength(1);
  });

  it("/new starts a fresh session, /undo and /retry edit the last exchange", async () => {
    await start();
    h.llm.enqueue({ kind: "text", text: "A1" }, { kind: "text", text: "A2" }, { kind: "text", text: "A2 again" }, { kind: "text", text: "fresh" });
    await h.adapter.userSays("Q1");
    await h.gateway.waitIdle(DM_KEY);
    await h.adapter.userSays("Q2");
    await h.gateway.waitIdle(DM_KEY);
    await h.adapter.userSays("/retry");
    await h.gateway.waitIdle(DM_KEY);
    expect(JSON.stringify(h.llm.requests[2]?.messages)).not.toContain("A2");
    expect(lastUserText(h.llm.requests[2])).toContain("Q2");
    await h.adapter.userSays("/undo");
    await h.gateway.waitIdle(DM_KEY);
    await h.adapter.userSays("/new");
    await h.gateway.waitIdle(DM_KEY);
    await h.adapter.userSays("Q3");
    await h.gateway.waitIdle(DM_KEY);
    expect(JSON.stringify(h.llm.requests[3]?.messages)).not.toContain("Q1");
    expect(h.adapter.texts()).toEqual([
      "A1",
      "A2",
      "Retrying your last message…",
      "A2 again",
      expect.stringContaining("Removed your last message"),
      expect.stringContaining("Started a new conversation"),
      "fresh",
    ]);
  });

  it("lets a hook block a message and says so", async () => {
    await start({ HERMES_BLOCKED_KEYWORDS: "" });
    process.env.HERMES_BLOCKED_KEYWORDS = "forbidden-word";
    try {
      await h.adapter.userSays("this has a forbidden-word in it");
      await h.gateway.waitIdle(DM_KEY);
    } finally {
      delete process.env.HERMES_BLOCKED_KEYWORDS;
    }
    expect(h.adapter.texts()).toEqual([expect.stringContaining("was not processed")]);
    expect(h.llm.requests).toHaveLength(0);
  });
});
