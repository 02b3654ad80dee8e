import { promises as fs } from "node:fs";
import path from "node:path";
import { fauxAssistantMessage, fauxToolCall, type Context, type ToolResultMessage } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAgentFixture, registryWith, type FauxAgentFixture } from "./testing/faux.js";
import { defineTool } from "./tools/types.js";

const DAY_MS = 24 * 60 * 60 * 1000;

let fx: FauxAgentFixture;
let workspace: string;

beforeEach(async () => {
  fx = await fauxAgentFixture();
  workspace = path.join(fx.stateDir, "workspace");
});

afterEach(async () => {
  await fx.cleanup();
});

const bigOutput = defineTool({
  name: "big_output",
  description: "returns a long text",
  parameters: Type.Object({}),
  concurrency: "parallel-safe",
  handler: async () => ({ content: `secret-of-this-session ${"x".repeat(400)}` }),
});

function fileTools() {
  return { enable: ["read_file", "list_directory"], workspaceRoot: workspace };
}

function lastToolResultText(context: Context): string {
  const results = context.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
  const last = results[results.length - 1];
  return last === undefined ? "" : last.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

function toolResultTexts(messages: readonly { role: string }[]): string[] {
  return messages
    .filter((m): m is ToolResultMessage => m.role === "toolResult")
    .map((m) => m.content.map((c) => (c.type === "text" ? c.text : "")).join(""));
}

describe("HermesAgent session folders", () => {
  it("lets a run read its own spilled output but not another session's", async () => {
    const spilling = await fx.make({ tools: registryWith(bigOutput), builtinTools: fileTools(), resultBudget: { defaultMaxChars: 100, previewChars: 20 } });
    const sessions = path.join(fx.stateDir, "sessions");
    const spilledPath = (context: Context): string => /saved to (\S+\.txt);/.exec(lastToolResultText(context))?.[1] ?? "missing";

    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("big_output", {})], { stopReason: "toolUse" }),
      (context) => fauxAssistantMessage([fauxToolCall("read_file", { path: spilledPath(context) })], { stopReason: "toolUse" }),
      fauxAssistantMessage("done"),
    ]);
    const first = await spilling.run("produce", { sessionId: "chat:one" });
    const [spillNote, ownRead] = toolResultTexts(first.newMessages);
    expect(spillNote).toContain(path.join("sessions", "chat_one", "tool-results"));
    expect(ownRead).toContain("secret-of-this-session");
    const spilledFile = /saved to (\S+\.txt);/.exec(spillNote ?? "")?.[1] ?? "missing";

    fx.faux.setResponses([
      fauxAssistantMessage(
        [
          fauxToolCall("read_file", { path: spilledFile }),
          fauxToolCall("list_directory", { path: sessions, recursive: true }),
          fauxToolCall("list_directory", { path: path.join(sessions, "chat_one"), recursive: true }),
        ],
        { stopReason: "toolUse" },
      ),
      fauxAssistantMessage("done"),
    ]);
    const other = await fx.make({ builtinTools: fileTools() });
    const second = await other.run("snoop", { sessionId: "chat:two" });
    const texts = toolResultTexts(second.newMessages);
    expect(texts).toHaveLength(3);
    for (const text of texts) {
      expect(text).toContain("another session");
      expect(text).not.toContain("secret-of-this-session");
      expect(text).not.toMatch(/^Folder:/);
    }
  });

  it("removes session folders that were not touched for seven days when it is created", async () => {
    const now = Date.parse("2031-03-01T12:00:00Z");
    const sessions = path.join(fx.stateDir, "sessions");
    for (const [name, ageDays] of [["stale", 8], ["fresh", 3]] as const) {
      const file = path.join(sessions, name, "tool-results", "call.txt");
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, "output\n");
      const when = new Date(now - ageDays * DAY_MS);
      for (const target of [file, path.dirname(file), path.join(sessions, name)]) await fs.utimes(target, when, when);
    }
    await fx.make({ now: () => now });
    expect(await fs.readdir(sessions)).toEqual(["fresh"]);
  });
});
