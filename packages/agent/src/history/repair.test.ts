import { describe, it, expect } from "vitest";
import type {
  AssistantMessage,
  Message,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "@mariozechner/pi-ai";
import { MISSING_RESULT_TEXT, repairHistory } from "./repair.js";

const STUB_TIME = 9_999;
const clock = (): number => STUB_TIME;

function user(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

function assistant(content: AssistantMessage["content"], overrides: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "openai",
    model: "gpt-test",
    usage: {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
    timestamp: 2,
    ...overrides,
  };
}

function call(id: string, name = "read_file", args: Record<string, unknown> = { path: "/tmp/a.txt" }): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

/** A call whose arguments arrived in a shape the pi-ai type does not allow (as some providers send them). */
function callWithRawArguments(id: string, raw: unknown): ToolCall {
  return { type: "toolCall", id, name: "read_file", arguments: raw as Record<string, unknown> };
}

function result(toolCallId: string, text = "ok", toolName = "read_file"): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError: false, timestamp: 3 };
}

function stub(toolCallId: string, toolName = "read_file"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text: MISSING_RESULT_TEXT }],
    isError: true,
    timestamp: STUB_TIME,
  };
}

function toolCallsOf(message: Message | undefined): ToolCall[] {
  if (!message || message.role !== "assistant") throw new Error(`expected an assistant message, got ${message?.role}`);
  return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

describe("repairHistory: valid transcripts", () => {
  it("returns an already-valid transcript equal to the input, with no notes", () => {
    const messages: Message[] = [
      user("read two files"),
      assistant([{ type: "text", text: "Reading." }, call("c1"), call("c2", "read_file", { path: "/tmp/b.txt" })]),
      result("c1", "first"),
      result("c2", "second"),
      assistant([{ type: "text", text: "Done." }]),
      user("thanks"),
      assistant([{ type: "text", text: "You are welcome." }]),
    ];
    const repaired = repairHistory(messages, clock);
    expect(repaired.notes).toEqual([]);
    expect(repaired.messages).toEqual(messages);
  });

  it("returns an empty transcript unchanged", () => {
    expect(repairHistory([], clock)).toEqual({ messages: [], notes: [] });
  });

  it("accepts results in a different order than the calls", () => {
    const messages: Message[] = [user("go"), assistant([call("c1"), call("c2")]), result("c2"), result("c1")];
    const repaired = repairHistory(messages, clock);
    expect(repaired.notes).toEqual([]);
    expect(repaired.messages).toEqual(messages);
  });
});

describe("repairHistory: orphan results", () => {
  it("removes a result that answers no call", () => {
    const messages: Message[] = [user("go"), assistant([call("c1")]), result("c1"), result("ghost")];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([user("go"), assistant([call("c1")]), result("c1")]);
    expect(repaired.notes).toEqual([{ kind: "orphan_result_removed", toolCallId: "ghost" }]);
  });

  it("removes a result at the start of the transcript", () => {
    const repaired = repairHistory([result("c0"), user("hi")], clock);
    expect(repaired.messages).toEqual([user("hi")]);
    expect(repaired.notes).toEqual([{ kind: "orphan_result_removed", toolCallId: "c0" }]);
  });

  it("removes a result that comes after a user message, and stubs the call it was meant for", () => {
    const messages: Message[] = [user("go"), assistant([call("c1")]), user("hurry up"), result("c1")];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([user("go"), assistant([call("c1")]), stub("c1"), user("hurry up")]);
    expect(repaired.notes).toEqual([
      { kind: "missing_result_stubbed", toolCallId: "c1" },
      { kind: "orphan_result_removed", toolCallId: "c1" },
    ]);
  });

  it("removes a second result for a call that was already answered", () => {
    const messages: Message[] = [user("go"), assistant([call("c1")]), result("c1", "first"), result("c1", "again")];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([user("go"), assistant([call("c1")]), result("c1", "first")]);
    expect(repaired.notes).toEqual([{ kind: "orphan_result_removed", toolCallId: "c1" }]);
  });

  it("removes a result that answers a call of an earlier assistant message", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("c1")]),
      assistant([{ type: "text", text: "moving on" }]),
      result("c1"),
    ];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([
      user("go"),
      assistant([call("c1")]),
      stub("c1"),
      assistant([{ type: "text", text: "moving on" }]),
    ]);
    expect(repaired.notes.map((n) => n.kind)).toEqual(["missing_result_stubbed", "orphan_result_removed"]);
  });
});

describe("repairHistory: missing results", () => {
  it("stubs unanswered calls right after the call's existing results, before the next user message", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("c1"), call("c2", "web_fetch"), call("c3")]),
      result("c2", "fetched", "web_fetch"),
      user("next"),
    ];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([
      user("go"),
      assistant([call("c1"), call("c2", "web_fetch"), call("c3")]),
      result("c2", "fetched", "web_fetch"),
      stub("c1"),
      stub("c3"),
      user("next"),
    ]);
    expect(repaired.notes).toEqual([
      { kind: "missing_result_stubbed", toolCallId: "c1" },
      { kind: "missing_result_stubbed", toolCallId: "c3" },
    ]);
  });

  it("stubs calls when the transcript ends before they were answered", () => {
    const messages: Message[] = [user("go"), assistant([call("c1"), call("c2", "terminal")]), result("c1")];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([
      user("go"),
      assistant([call("c1"), call("c2", "terminal")]),
      result("c1"),
      stub("c2", "terminal"),
    ]);
    expect(repaired.notes).toEqual([{ kind: "missing_result_stubbed", toolCallId: "c2" }]);
  });

  it("stubs every call of a final assistant message with no results at all", () => {
    const messages: Message[] = [user("go"), assistant([call("c1"), call("c2")])];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages.slice(2)).toEqual([stub("c1"), stub("c2")]);
  });

  it("stubs unanswered calls before the next assistant message", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("c1")]),
      assistant([call("c2")]),
      result("c2"),
    ];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([
      user("go"),
      assistant([call("c1")]),
      stub("c1"),
      assistant([call("c2")]),
      result("c2"),
    ]);
  });

  it("stamps stubs with the injected clock", () => {
    let tick = 100;
    const repaired = repairHistory([user("go"), assistant([call("c1"), call("c2")])], () => (tick += 1));
    expect(repaired.messages.slice(2).map((m) => m.timestamp)).toEqual([101, 102]);
  });
});

describe("repairHistory: duplicate call ids", () => {
  it("renames a duplicate id within one assistant message and re-points its result", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("dup", "read_file", { path: "/tmp/a" }), call("dup", "read_file", { path: "/tmp/b" })]),
      result("dup", "content of a"),
      result("dup", "content of b"),
    ];
    const repaired = repairHistory(messages, clock);

    const [first, second] = toolCallsOf(repaired.messages[1]);
    expect(first?.id).toBe("dup");
    expect(second?.id).not.toBe("dup");
    expect(second?.arguments).toEqual({ path: "/tmp/b" });
    const renamed = second?.id ?? "";
    expect(renamed.length).toBeGreaterThan(0);

    expect(repaired.messages.slice(2)).toEqual([result("dup", "content of a"), result(renamed, "content of b")]);
    expect(repaired.notes).toEqual([{ kind: "duplicate_id_renamed", toolCallId: renamed, detail: 'was "dup"' }]);
  });

  it("renames an id reused by a later assistant message and re-points that message's result", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("call_0")]),
      result("call_0", "first"),
      assistant([call("call_0", "web_search", { query: "x" })]),
      result("call_0", "second", "web_search"),
    ];
    const repaired = repairHistory(messages, clock);

    expect(repaired.messages.slice(0, 3)).toEqual(messages.slice(0, 3));
    const [later] = toolCallsOf(repaired.messages[3]);
    const renamed = later?.id ?? "";
    expect(renamed).not.toBe("call_0");
    expect(renamed.length).toBeGreaterThan(0);
    expect(repaired.messages[4]).toEqual(result(renamed, "second", "web_search"));
    expect(repaired.notes).toEqual([{ kind: "duplicate_id_renamed", toolCallId: renamed, detail: 'was "call_0"' }]);
  });

  it("keeps renamed ids distinct from ids that occur later in the transcript", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("x"), call("x"), call("x_2")]),
      result("x", "one"),
      result("x", "two"),
      result("x_2", "three"),
    ];
    const repaired = repairHistory(messages, clock);
    const ids = toolCallsOf(repaired.messages[1]).map((c) => c.id);
    expect(new Set(ids).size).toBe(3);
    const answered = repaired.messages.slice(2).map((m) => (m.role === "toolResult" ? m.toolCallId : m.role));
    expect(answered).toEqual(ids);
    expect(repaired.messages.slice(2).map((m) => (m.role === "toolResult" ? m.content : []))).toEqual([
      [{ type: "text", text: "one" }],
      [{ type: "text", text: "two" }],
      [{ type: "text", text: "three" }],
    ]);
  });

  it("gives a call with an empty id a fresh id and re-points its result", () => {
    const messages: Message[] = [user("go"), assistant([call("")]), result("")];
    const repaired = repairHistory(messages, clock);
    const [renamedCall] = toolCallsOf(repaired.messages[1]);
    const id = renamedCall?.id ?? "";
    expect(id.length).toBeGreaterThan(0);
    expect(repaired.messages[2]).toEqual(result(id));
    expect(repaired.notes).toEqual([{ kind: "duplicate_id_renamed", toolCallId: id, detail: 'was ""' }]);
  });

  it("stubs a renamed call under its new id", () => {
    const messages: Message[] = [user("go"), assistant([call("d"), call("d")]), result("d")];
    const repaired = repairHistory(messages, clock);
    const [, second] = toolCallsOf(repaired.messages[1]);
    const renamed = second?.id ?? "";
    expect(repaired.messages.slice(2)).toEqual([result("d"), stub(renamed)]);
  });
});

describe("repairHistory: arguments", () => {
  it("decodes double-encoded arguments", () => {
    const encoded = JSON.stringify(JSON.stringify({ path: "/tmp/a.txt" }));
    const messages: Message[] = [user("go"), assistant([callWithRawArguments("c1", encoded)]), result("c1")];
    const repaired = repairHistory(messages, clock);
    expect(toolCallsOf(repaired.messages[1])[0]?.arguments).toEqual({ path: "/tmp/a.txt" });
    expect(repaired.notes).toEqual([{ kind: "arguments_repaired", toolCallId: "c1" }]);
    expect(repaired.messages[2]).toEqual(result("c1"));
  });

  it("repairs arguments with trailing commas", () => {
    const raw = '{"path": "/tmp/a.txt", "lines": [1, 2,],}';
    const messages: Message[] = [user("go"), assistant([callWithRawArguments("c1", raw)]), result("c1")];
    const repaired = repairHistory(messages, clock);
    expect(toolCallsOf(repaired.messages[1])[0]?.arguments).toEqual({ path: "/tmp/a.txt", lines: [1, 2] });
    expect(repaired.notes).toEqual([{ kind: "arguments_repaired", toolCallId: "c1" }]);
  });

  it("replaces unrepairable arguments with an empty object and says why", () => {
    const messages: Message[] = [
      user("go"),
      assistant([callWithRawArguments("c1", '{"path": "/tmp/a'), callWithRawArguments("c2", [1, 2])]),
      result("c1"),
      result("c2"),
    ];
    const repaired = repairHistory(messages, clock);
    expect(toolCallsOf(repaired.messages[1]).map((c) => c.arguments)).toEqual([{}, {}]);
    expect(repaired.notes).toEqual([
      { kind: "arguments_unrepairable", toolCallId: "c1", detail: "arguments are not valid JSON" },
      { kind: "arguments_unrepairable", toolCallId: "c2", detail: "arguments are an array, not an object" },
    ]);
    expect(repaired.messages.slice(2)).toEqual([result("c1"), result("c2")]);
  });

  it("keeps the other blocks of a repaired assistant message", () => {
    const messages: Message[] = [
      user("go"),
      assistant([
        { type: "thinking", thinking: "plan" },
        { type: "text", text: "Reading." },
        callWithRawArguments("c1", '{"path":"/tmp/a.txt"}'),
      ]),
      result("c1"),
    ];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages[1]).toEqual(
      assistant([
        { type: "thinking", thinking: "plan" },
        { type: "text", text: "Reading." },
        call("c1", "read_file", { path: "/tmp/a.txt" }),
      ]),
    );
  });
});

describe("repairHistory: failed assistant messages", () => {
  it("removes an assistant message that ended in an error, with its detail", () => {
    const failed = assistant([{ type: "text", text: "partial" }], {
      stopReason: "error",
      errorMessage: "529 overloaded",
    });
    const messages: Message[] = [user("go"), failed, user("again"), assistant([{ type: "text", text: "ok" }])];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([user("go"), user("again"), assistant([{ type: "text", text: "ok" }])]);
    expect(repaired.notes).toEqual([{ kind: "failed_assistant_removed", detail: "529 overloaded" }]);
  });

  it("removes an aborted assistant message and the results of its calls", () => {
    const aborted = assistant([call("c1")], { stopReason: "aborted" });
    const messages: Message[] = [user("go"), aborted, result("c1"), user("again")];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([user("go"), user("again")]);
    expect(repaired.notes).toEqual([
      { kind: "failed_assistant_removed", detail: undefined },
      { kind: "orphan_result_removed", toolCallId: "c1" },
    ]);
  });

  it("cuts a long error message in the note", () => {
    const failed = assistant([], { stopReason: "error", errorMessage: "e".repeat(500) });
    const repaired = repairHistory([user("go"), failed], clock);
    expect(repaired.notes[0]?.detail).toBe("e".repeat(120));
  });

  it("stubs the calls of the previous message before dropping a failed one", () => {
    const messages: Message[] = [
      user("go"),
      assistant([call("c1")]),
      assistant([], { stopReason: "error", errorMessage: "boom" }),
    ];
    const repaired = repairHistory(messages, clock);
    expect(repaired.messages).toEqual([user("go"), assistant([call("c1")]), stub("c1")]);
    expect(repaired.notes.map((n) => n.kind)).toEqual(["missing_result_stubbed", "failed_assistant_removed"]);
  });
});

describe("repairHistory: input", () => {
  it("does not modify the messages it is given", () => {
    const messages: Message[] = [
      result("orphan"),
      user("go"),
      assistant([call("dup"), call("dup"), callWithRawArguments("c3", '{"a": 1,}'), callWithRawArguments("c4", "%")]),
      result("dup"),
      result("dup"),
      assistant([call("dup")]),
      user("next"),
      assistant([call("c9")], { stopReason: "error", errorMessage: "boom" }),
      result("c9"),
    ];
    const before = structuredClone(messages);
    const repaired = repairHistory(messages, clock);
    expect(repaired.notes.length).toBeGreaterThan(0);
    expect(messages).toEqual(before);
    expect(repaired.messages[1]).not.toBe(messages[2]);
  });
});
