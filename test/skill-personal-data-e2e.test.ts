import { access } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "./fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const ADA = { id: "7", name: "Ada Lovelace" };
const BOB = { id: "8", name: "Bob Marley" };
// In a Telegram DM the chat id is the person's id.
const ADA_DM = { user: ADA, chat: { id: "7", type: "dm" as const } };
const DM_KEY = "agent:main:telegram:dm:7";
const GROUP = { chat: { id: "-5", type: "group" as const }, mentionedBot: true };
const GROUP_KEY = "agent:main:telegram:group:-5";
let h: GatewayHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

type WireMessage = { role: string; content?: unknown; tool_call_id?: string };

function skillFile(name: string, body: string): string {
  return `---\nname: ${name}\ndescription: How to ${name.replace(/-/g, " ")}.\n---\n\n${body}\n`;
}

function createSkill(id: string, name: string, body: string): ScriptedReply {
  return { kind: "tools", calls: [{ id, name: "skill_manage", arguments: { action: "create", name, content: skillFile(name, body) } }] };
}

/** What the tool said to the call `id`, as the model got it in a later request. */
function toolReply(requests: readonly RecordedRequest[], id: string): string {
  for (const request of requests) {
    const found = (request.messages as WireMessage[]).find((message) => message.role === "tool" && message.tool_call_id === id);
    if (found) return typeof found.content === "string" ? found.content : JSON.stringify(found.content);
  }
  throw new Error(`no tool result for ${id}`);
}

async function skillExists(home: string, name: string): Promise<boolean> {
  return access(path.join(home, "skills", name, "SKILL.md")).then(
    () => true,
    () => false,
  );
}

describe("skill_manage keeps the conversation's personal data out of shared skills (gateway)", () => {
  it("in a DM refuses the sender's name and a USER.md entry, and accepts a general skill", async () => {
    const harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION: "off" });
    h = harness;
    harness.llm.enqueue(
      { kind: "tools", calls: [{ name: "memory", arguments: { action: "add", target: "user", content: "Is writing a thesis on sleep and fasting at TU Delft" } }] },
      { kind: "text", text: "Noted." },
    );
    await harness.adapter.userSays("Remember that I am writing a thesis on sleep and fasting at TU Delft.", ADA_DM);
    await harness.gateway.waitIdle(DM_KEY);

    harness.llm.enqueue(
      createSkill("named", "thesis-check-in", "# Thesis check-in\n\nAsk Lovelace how the chapter is going."),
      createSkill("remembered", "thesis-topic", "# Thesis topic\n\nThe user is writing a thesis on sleep and fasting at TU Delft."),
      createSkill("general", "thesis-check-in", "# Thesis check-in\n\n1. Ask which chapter <name> is on.\n2. Offer to review the outline."),
      { kind: "text", text: "I saved a skill for thesis check-ins." },
    );
    await harness.adapter.userSays("Make a skill for checking in on my thesis.", ADA_DM);
    await harness.gateway.waitIdle(DM_KEY);

    const requests = harness.llm.requests;
    expect(toolReply(requests, "named")).toMatch(/^Refused: the skill contains the name of a person in this conversation\./);
    expect(toolReply(requests, "remembered")).toMatch(/^Refused: the skill contains text from what memory keeps about a person\./);
    expect(toolReply(requests, "general")).not.toMatch(/Refused/);
    expect(await skillExists(harness.home, "thesis-check-in")).toBe(true);
    expect(await skillExists(harness.home, "thesis-topic")).toBe(false);
    expect(harness.adapter.texts().at(-1)).toBe("I saved a skill for thesis check-ins.");
  });

  it("in a shared group refuses the name of another member who wrote earlier in the session", async () => {
    const harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7,telegram:8", HERMES_GROUP_SESSIONS: "shared", HERMES_REFLECTION: "off" });
    h = harness;
    harness.llm.enqueue({ kind: "text", text: "Welcome, both of you." });
    await harness.adapter.userSays("@bot hi, I am new here", { ...GROUP, user: BOB });
    await harness.gateway.waitIdle(GROUP_KEY);

    harness.llm.enqueue(
      createSkill("other-member", "welcome-newcomers", "# Welcome newcomers\n\nGreet Marley and point to the pinned rules."),
      createSkill("general", "welcome-newcomers", "# Welcome newcomers\n\nGreet the newcomer and point to the pinned rules."),
      { kind: "text", text: "Saved." },
    );
    await harness.adapter.userSays("@bot save how you welcome newcomers as a skill", { ...GROUP, user: ADA });
    await harness.gateway.waitIdle(GROUP_KEY);

    // Bob's name reached this run only through the "[Bob Marley] " prefix of his message in the transcript.
    expect(JSON.stringify(harness.llm.requests.at(-1)?.messages)).toContain("[Bob Marley] ");
    expect(toolReply(harness.llm.requests, "other-member")).toMatch(/^Refused: the skill contains the name of a person/);
    expect(toolReply(harness.llm.requests, "general")).not.toMatch(/Refused/);
    expect(await skillExists(harness.home, "welcome-newcomers")).toBe(true);
  });
});
