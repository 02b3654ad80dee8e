import { describe, it, expect } from "vitest";
import { createTracer, describeError, noopTracer, type TraceRecord, type TracerOptions } from "./tracer.js";

function fixture(options: TracerOptions = {}) {
  let clock = 1000;
  let counter = 0;
  const exported: TraceRecord[] = [];
  const tracer = createTracer({
    now: () => clock,
    newId: () => `id${++counter}`,
    onTraceEnd: (trace) => exported.push(trace),
    ...options,
  });
  return { tracer, exported, advance: (ms: number) => (clock += ms) };
}

describe("createTracer", () => {
  it("nests spans under the root and lists them root first, then in start order", () => {
    const { tracer, advance } = fixture();
    const trace = tracer.startTrace("agent.run", { session: "s1" });
    advance(5);
    const llm = trace.startSpan("llm.call", { model: "m" });
    advance(10);
    llm.end();
    const tool = trace.startSpan("tool.execute");
    const child = tool.startChild("tool.subprocess");
    advance(3);
    child.end();
    tool.end();
    advance(2);
    const record = trace.end();

    expect(record).toMatchObject({ traceId: "id1", name: "agent.run", startTimeMs: 1000, endTimeMs: 1020, durationMs: 20 });
    expect(record.spans.map((s) => [s.name, s.spanId, s.parentSpanId])).toEqual([
      ["agent.run", "id2", undefined],
      ["llm.call", "id3", "id2"],
      ["tool.execute", "id4", "id2"],
      ["tool.subprocess", "id5", "id4"],
    ]);
    expect(record.spans.every((s) => s.traceId === "id1")).toBe(true);
    expect(record.spans[0]?.attributes).toEqual({ session: "s1" });
    expect(record.spans[1]).toMatchObject({ startTimeMs: 1005, endTimeMs: 1015, durationMs: 10, status: "ok", attributes: { model: "m" } });
    expect(record.spans[3]).toMatchObject({ startTimeMs: 1015, endTimeMs: 1018, durationMs: 3 });
    expect(trace.root.spanId).toBe("id2");
  });

  it("makes span end and trace end idempotent and exports the trace once", () => {
    const { tracer, exported, advance } = fixture();
    const trace = tracer.startTrace("run");
    const span = trace.startSpan("step");
    advance(4);
    span.end();
    advance(4);
    span.end();
    const first = trace.end();
    advance(10);
    const second = trace.end();

    expect(second).toBe(first);
    expect(exported).toEqual([first]);
    expect(first.spans[1]).toMatchObject({ endTimeMs: 1004, durationMs: 4 });
    expect(first.endTimeMs).toBe(1008);
  });

  it("ends unended spans when the trace ends", () => {
    const { tracer, advance } = fixture();
    const trace = tracer.startTrace("run");
    trace.startSpan("left.open");
    advance(7);
    const record = trace.end();
    expect(record.spans.map((s) => [s.status, s.endTimeMs])).toEqual([
      ["ok", 1007],
      ["ok", 1007],
    ]);
  });

  it("ignores changes after a span or trace has ended", () => {
    const { tracer } = fixture();
    const trace = tracer.startTrace("run");
    const span = trace.startSpan("step");
    span.end();
    span.setAttribute("late", true);
    span.recordError(new Error("late"));
    const record = trace.end();
    trace.startSpan("after.end").end();
    trace.root.setAttribute("late", 1);

    expect(record.spans).toHaveLength(2);
    expect(record.spans[1]).toMatchObject({ status: "ok", attributes: {} });
    expect(record.spans[1]?.error).toBeUndefined();
    expect(record.spans[0]?.attributes).toEqual({});
  });

  it("marks a span as error with a short message and keeps the first error", () => {
    const { tracer } = fixture();
    const trace = tracer.startTrace("run");
    const failing = trace.startSpan("tool.execute");
    failing.recordError(new Error("disk full"));
    failing.recordError("second problem");
    failing.end();
    const stringError = trace.startSpan("llm.call");
    stringError.recordError("x".repeat(2000));
    stringError.end();
    const record = trace.end();

    expect(record.spans[1]).toMatchObject({ status: "error", error: "disk full" });
    expect(record.spans[2]?.status).toBe("error");
    expect(record.spans[2]?.error?.length).toBe(500);
    expect(record.spans[2]?.error?.endsWith("…")).toBe(true);
  });

  it("describes odd thrown values without throwing", () => {
    const hostile = {
      toString() {
        throw new Error("no");
      },
    };
    expect(describeError({ message: "plain object" })).toBe("plain object");
    expect(describeError(42)).toBe("42");
    expect(describeError(null)).toBe("null");
    expect(describeError(new TypeError(""))).toBe("TypeError");
    expect(describeError(hostile)).toBe("unprintable error");
  });

  it("keeps only valid attribute values and skips undefined ones", () => {
    const { tracer } = fixture();
    const trace = tracer.startTrace("run");
    const span = trace.startSpan("step");
    span.setAttributes({ tokens: 12, cached: false, model: "m", missing: undefined });
    span.setAttribute("bad", Number.NaN);
    span.setAttribute("object", { nested: true } as unknown as string);
    span.setAttributes(null as unknown as Record<string, string>);
    const record = trace.end();
    expect(record.spans[1]?.attributes).toEqual({ tokens: 12, cached: false, model: "m" });
  });

  it("swallows an exporter that throws or rejects", async () => {
    const throwing = createTracer({
      onTraceEnd: () => {
        throw new Error("exporter down");
      },
    });
    const rejecting = createTracer({ onTraceEnd: async () => Promise.reject(new Error("exporter down")) });

    const record = throwing.startTrace("run").end();
    expect(record.spans).toHaveLength(1);
    expect(rejecting.startTrace("run").end().name).toBe("run");
    await new Promise((resolve) => setImmediate(resolve));
  });

  it("caps stored spans and counts the rest in the root attribute dropped_spans", () => {
    const { tracer } = fixture({ maxSpansPerTrace: 3 });
    const trace = tracer.startTrace("run");
    const kept = trace.startSpan("kept.1");
    trace.startSpan("kept.2").end();
    const dropped = trace.startSpan("dropped.1");
    dropped.setAttribute("ignored", true);
    dropped.startChild("dropped.2").end();
    kept.startChild("dropped.3");
    dropped.end();
    const record = trace.end();

    expect(record.spans.map((s) => s.name)).toEqual(["run", "kept.1", "kept.2"]);
    expect(record.spans[0]?.attributes).toEqual({ dropped_spans: 3 });
    expect(dropped.traceId).toBe(trace.traceId);
  });

  it("falls back to its own clock and ids when the injected ones misbehave", () => {
    const tracer = createTracer({
      now: () => Number.NaN,
      newId: () => {
        throw new Error("no ids");
      },
    });
    const record = tracer.startTrace("run").end();
    expect(record.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(record.spans[0]?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(Number.isFinite(record.startTimeMs)).toBe(true);
  });
});

describe("noopTracer", () => {
  it("accepts every call and records nothing", () => {
    const trace = noopTracer.startTrace("run", { a: 1 });
    const span = trace.startSpan("step");
    span.setAttribute("x", 1);
    span.recordError(new Error("boom"));
    span.startChild("child").end();
    span.end();
    expect(trace.end()).toEqual({ traceId: "", name: "run", startTimeMs: 0, endTimeMs: 0, durationMs: 0, spans: [] });
  });
});
