import { Type } from "@sinclair/typebox";
import { describe, it, expect } from "vitest";
import { silentLogger } from "../observability/logger.js";
import { runWithDeadline } from "./run-with-deadline.js";
import { defineTool, type AnyToolDefinition, type ToolContext, type ToolResult } from "./types.js";

type Handler = (args: Record<string, unknown>, context: ToolContext) => Promise<ToolResult>;

function toolWith(handler: Handler): AnyToolDefinition {
  return defineTool({
    name: "probe",
    description: "Test tool.",
    parameters: Type.Object({}, { additionalProperties: true }),
    concurrency: "parallel-safe",
    handler,
  });
}

function run(handler: Handler, overrides: { timeoutMs?: number; parentSignal?: AbortSignal; args?: Record<string, unknown> } = {}) {
  return runWithDeadline(toolWith(handler), overrides.args ?? {}, {
    parentSignal: overrides.parentSignal ?? new AbortController().signal,
    timeoutMs: overrides.timeoutMs ?? 60_000,
    toolCallId: "call_7",
    sessionId: "session_3",
    logger: silentLogger,
  });
}

/** Settles when the signal aborts, with the abort reason's message. */
function abortReason(signal: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const report = (): void => resolve(signal.reason instanceof Error ? signal.reason.message : String(signal.reason));
    if (signal.aborted) report();
    else signal.addEventListener("abort", report, { once: true });
  });
}

const never = (): Promise<ToolResult> => new Promise<ToolResult>(() => {});

describe("runWithDeadline", () => {
  it("returns the handler's result, passing arguments and call context through", async () => {
    let seen: { args: Record<string, unknown>; context: ToolContext } | undefined;
    const outcome = await run(
      async (args, context) => {
        seen = { args, context };
        return { content: "done", details: { n: 1 } };
      },
      { args: { path: "/tmp/a.txt" } },
    );
    expect(outcome).toEqual({ kind: "done", result: { content: "done", details: { n: 1 } } });
    expect(seen?.args).toEqual({ path: "/tmp/a.txt" });
    expect(seen?.context.toolCallId).toBe("call_7");
    expect(seen?.context.sessionId).toBe("session_3");
    expect(seen?.context.logger).toBe(silentLogger);
  });

  it("passes an error result through as done", async () => {
    const outcome = await run(async () => ({ content: "file not found", isError: true }));
    expect(outcome).toEqual({ kind: "done", result: { content: "file not found", isError: true } });
  });

  it("aborts the handler's signal once the call has finished, so leftover work stops", async () => {
    let signal: AbortSignal | undefined;
    await run(async (_args, context) => {
      signal = context.signal;
      expect(context.signal.aborted).toBe(false);
      return { content: "ok" };
    });
    expect(signal?.aborted).toBe(true);
  });

  it("cuts loose a handler that ignores the timeout", async () => {
    const outcome = await run(never, { timeoutMs: 5 });
    expect(outcome).toEqual({ kind: "timeout", timeoutMs: 5 });
  });

  it("aborts the signal of a handler that honours it when the timeout passes", async () => {
    let reason: string | undefined;
    const outcome = await run(
      async (_args, context) => {
        reason = await abortReason(context.signal);
        return { content: "stopped early" };
      },
      { timeoutMs: 5 },
    );
    expect(outcome).toEqual({ kind: "timeout", timeoutMs: 5 });
    expect(reason).toBe("timed out after 5 ms");
  });

  it("reports a timeout, not an error, when the handler rejects because of the timeout", async () => {
    const outcome = await run(
      async (_args, context) => {
        await abortReason(context.signal);
        throw new Error("operation was aborted");
      },
      { timeoutMs: 5 },
    );
    expect(outcome).toEqual({ kind: "timeout", timeoutMs: 5 });
  });

  it("reports an abort when the run is cancelled, and passes the cancel reason to the handler", async () => {
    const parent = new AbortController();
    let reason: string | undefined;
    const outcome = await run(
      async (_args, context) => {
        const seen = abortReason(context.signal);
        parent.abort(new Error("user pressed stop"));
        reason = await seen;
        return { content: "too late" };
      },
      { parentSignal: parent.signal },
    );
    expect(outcome).toEqual({ kind: "aborted" });
    expect(reason).toBe("user pressed stop");
  });

  it("cuts loose a handler that ignores a cancelled run", async () => {
    const parent = new AbortController();
    const outcome = run(never, { parentSignal: parent.signal });
    parent.abort();
    expect(await outcome).toEqual({ kind: "aborted" });
  });

  it("does not call the handler when the run is already cancelled", async () => {
    const parent = new AbortController();
    parent.abort();
    let called = false;
    const outcome = await run(
      async () => {
        called = true;
        return { content: "ran" };
      },
      { parentSignal: parent.signal },
    );
    expect(outcome).toEqual({ kind: "aborted" });
    expect(called).toBe(false);
  });

  it("ignores a cancel that comes after the call finished", async () => {
    const parent = new AbortController();
    let signal: AbortSignal | undefined;
    const outcome = await run(
      async (_args, context) => {
        signal = context.signal;
        return { content: "ok" };
      },
      { parentSignal: parent.signal },
    );
    parent.abort(new Error("later"));
    expect(outcome).toEqual({ kind: "done", result: { content: "ok" } });
    expect(signal?.reason).toBeInstanceOf(Error);
    expect(signal?.reason instanceof Error ? signal.reason.message : "").toBe("tool call finished");
  });

  it("reports a handler that throws, synchronously or asynchronously", async () => {
    const syncThrow: Handler = () => {
      throw new Error("bad state");
    };
    expect(await run(syncThrow)).toEqual({ kind: "threw", error: "bad state" });
    expect(await run(async () => Promise.reject(new Error("async bad")))).toEqual({ kind: "threw", error: "async bad" });
  });

  it("reports a thrown value that is not an Error as text", async () => {
    expect(await run(async () => Promise.reject("plain string"))).toEqual({ kind: "threw", error: "plain string" });
  });

  it("sets no deadline for an infinite timeout", async () => {
    let signal: AbortSignal | undefined;
    const outcome = await run(
      async (_args, context) => {
        signal = context.signal;
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(context.signal.aborted).toBe(false);
        return { content: "slow but fine" };
      },
      { timeoutMs: Infinity },
    );
    expect(outcome).toEqual({ kind: "done", result: { content: "slow but fine" } });
    expect(signal?.aborted).toBe(true);
  });

  it("sets no deadline for a zero timeout", async () => {
    const outcome = await run(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { content: "fine" };
      },
      { timeoutMs: 0 },
    );
    expect(outcome).toEqual({ kind: "done", result: { content: "fine" } });
  });

  it("caps a timeout too long for a timer instead of letting it fire at once", async () => {
    const outcome = await run(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { content: "fine" };
      },
      { timeoutMs: 3_000_000_000 },
    );
    expect(outcome).toEqual({ kind: "done", result: { content: "fine" } });
  });
});
