import type { Message } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { repairHistory } from "../history/repair.js";
import { conversationBuilder, longOutput, messageText } from "./conversation-fixture.js";
import { describeToolResult, PRUNED_ACTION_NOTE, PRUNED_OUTPUT_NOTE, pruneToolResults } from "./prune-tool-results.js";

describe("describeToolResult", () => {
  const c = conversationBuilder();

  it("describes a terminal run by command, exit code and line count", () => {
    const call = c.calls({ id: "t1", name: "terminal", args: { command: "npm test" } });
    const output = `${longOutput("FAIL", 238)}\n\nexit code: 1`;
    const block = call.content[0];
    expect(block?.type).toBe("toolCall");
    const line = describeToolResult(c.result("t1", "terminal", output), block?.type === "toolCall" ? block : undefined);
    expect(line).toBe('[terminal] ran "npm test" → exit 1, 240 lines');
  });

  it("says when a terminal command timed out", () => {
    const text = "partial\n\n[the command and its process group were killed]\ntimed out after 5s";
    expect(describeToolResult(c.result("t", "terminal", text, true), { type: "toolCall", id: "t", name: "terminal", arguments: { command: "sleep 100" } }))
      .toBe('[terminal] ran "sleep 100" → timed out, 4 lines');
  });

  it("describes read_file by path and size with thousands separators", () => {
    const line = describeToolResult(c.result("r", "read_file", "x".repeat(12_345)), { type: "toolCall", id: "r", name: "read_file", arguments: { path: "src/a.ts" } });
    expect(line).toBe("[read_file] read src/a.ts (12,345 chars)");
    const paged = describeToolResult(c.result("r", "read_file", "x".repeat(10)), { type: "toolCall", id: "r", name: "read_file", arguments: { path: "src/a.ts", offset: 200 } });
    expect(paged).toBe("[read_file] read src/a.ts from line 200 (10 chars)");
  });

  it("describes write_file by the lines written", () => {
    const line = describeToolResult(c.result("w", "write_file", "ok"), { type: "toolCall", id: "w", name: "write_file", arguments: { path: "b.md", content: "1\n2\n3" } });
    expect(line).toBe("[write_file] wrote b.md (3 lines)");
  });

  it("falls back to a generic size line and marks failures", () => {
    expect(describeToolResult(c.result("g", "custom_tool", "y".repeat(5_000)))).toBe("[custom_tool] 5,000 chars");
    expect(describeToolResult(c.result("g", "custom_tool", "y".repeat(5_000)), { type: "toolCall", id: "g", name: "custom_tool", arguments: { query: "q  1", limit: 3 } }))
      .toBe('[custom_tool] {"query":"q 1","limit":3} → 5,000 chars');
    expect(describeToolResult(c.result("g", "web_fetch", "nope", true), { type: "toolCall", id: "g", name: "web_fetch", arguments: { url: "https://example.com/" } }))
      .toBe("[web_fetch] fetched https://example.com/ (4 chars) — failed");
  });

  it("shortens long arguments so the line stays one short line", () => {
    const line = describeToolResult(c.result("t", "terminal", "exit code: 0"), { type: "toolCall", id: "t", name: "terminal", arguments: { command: `echo ${"z".repeat(300)}` } });
    expect(line.length).toBeLessThan(130);
    expect(line).toContain("…");
  });
});

describe("pruneToolResults", () => {
  it("replaces long results before `end` by one line and keeps ids, names and error flags", () => {
    const c = conversationBuilder();
    const messages = [
      c.user("go"),
      c.calls({ id: "a", name: "terminal", args: { command: "make" } }, { id: "b", name: "read_file", args: { path: "x.ts" } }),
      c.result("a", "terminal", `${longOutput("out", 50)}\n\nexit code: 2`, false),
      c.result("b", "read_file", "short", false),
      c.reply("next"),
      c.calls({ id: "c", name: "read_file", args: { path: "y.ts" } }),
      c.result("c", "read_file", longOutput("y", 50)),
    ];
    const { messages: pruned, pruned: count } = pruneToolResults(messages, { end: 5 });
    expect(count).toBe(1);
    expect(messageText(pruned[2] as Message)).toBe(`[terminal] ran "make" → exit 2, 52 lines ${PRUNED_ACTION_NOTE}`);
    expect(pruned[2]).toMatchObject({ role: "toolResult", toolCallId: "a", toolName: "terminal", isError: false });
    expect(pruned[3]).toBe(messages[3]);
    expect(pruned[6]).toBe(messages[6]);
    expect(repairHistory(pruned).notes).toEqual([]);
  });

  it("prunes image results whatever their text length", () => {
    const c = conversationBuilder();
    const messages = [
      c.calls({ id: "s", name: "screenshot", args: {} }),
      { ...c.result("s", "screenshot", ""), content: [{ type: "image" as const, data: "AAAA", mimeType: "image/png" }] },
    ];
    const { messages: pruned } = pruneToolResults(messages);
    expect(pruned[1]).toMatchObject({ content: [{ type: "text", text: `[screenshot] 0 chars, 1 image ${PRUNED_ACTION_NOTE}` }] });
  });

  it("tells the model to call a lookup again for its output, but to repeat an action only when that is safe", () => {
    const c = conversationBuilder();
    const messages = [
      c.calls({ id: "r", name: "read_file", args: { path: "x.ts" } }, { id: "p", name: "patch", args: { path: "x.ts" } }, { id: "m", name: "mcp_send_email", args: { to: "a@b.c" } }),
      c.result("r", "read_file", longOutput("x", 50)),
      c.result("p", "patch", longOutput("diff", 50)),
      c.result("m", "mcp_send_email", longOutput("sent", 50)),
    ];
    const texts = pruneToolResults(messages).messages.slice(1).map((m) => messageText(m));
    expect(texts[0]).toBe(`[read_file] read x.ts (3,049 chars) ${PRUNED_OUTPUT_NOTE}`);
    expect(texts[1]?.endsWith(PRUNED_ACTION_NOTE)).toBe(true);
    expect(texts[2]?.endsWith(PRUNED_ACTION_NOTE)).toBe(true);
    expect(PRUNED_ACTION_NOTE).not.toContain("call the tool again");
  });
});
