import { describe, expect, it } from "vitest";
import { copyAgentRunJob, parseAgentRunJob } from "./types.js";

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("parseAgentRunJob", () => {
  it("keeps a valid W3C trace context with the job", () => {
    expect(parseAgentRunJob({ inboundId: 3, sessionKey: "k", traceparent: TRACEPARENT, tracestate: "vendor=1", enqueueToken: "t" }))
      .toEqual({ inboundId: 3, sessionKey: "k", traceparent: TRACEPARENT, tracestate: "vendor=1" });
    expect(parseAgentRunJob({ inboundId: 3, sessionKey: "k" })).toEqual({ inboundId: 3, sessionKey: "k" });
  });

  it("drops a malformed trace context but keeps the run", () => {
    for (const traceparent of ["garbage", 42, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331", "00-00000000000000000000000000000000-b7ad6b7169203331-01", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", `${TRACEPARENT}\n`]) {
      expect(parseAgentRunJob({ inboundId: 3, sessionKey: "k", traceparent, tracestate: "a=b" })).toEqual({ inboundId: 3, sessionKey: "k" });
    }
    expect(parseAgentRunJob({ inboundId: 3, sessionKey: "k", traceparent: TRACEPARENT, tracestate: "x".repeat(600) })).toEqual({ inboundId: 3, sessionKey: "k", traceparent: TRACEPARENT });
  });

  it("still rejects a job without a usable inbound id or session key", () => {
    expect(parseAgentRunJob({ inboundId: "3", sessionKey: "k", traceparent: TRACEPARENT })).toBeUndefined();
    expect(parseAgentRunJob({ inboundId: 3, sessionKey: "", traceparent: TRACEPARENT })).toBeUndefined();
    expect(parseAgentRunJob(null)).toBeUndefined();
  });

  it("copies only a job's own fields", () => {
    const extended = { inboundId: 1, sessionKey: "k", traceparent: TRACEPARENT, extra: "x" };
    expect(copyAgentRunJob(extended)).toEqual({ inboundId: 1, sessionKey: "k", traceparent: TRACEPARENT });
  });
});
