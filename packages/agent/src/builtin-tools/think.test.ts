import { describe, it, expect } from "vitest";
import { silentLogger } from "../observability/logger.js";
import { thinkTool } from "./think.js";

describe("think", () => {
  it("acknowledges the thought without echoing it", async () => {
    const tool = thinkTool();
    const context = { signal: new AbortController().signal, toolCallId: "c1", sessionId: "s1", logger: silentLogger };
    const result = await tool.handler({ thought: "First list the files, then read the config." }, context);
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe("Thought noted.");
    expect(result.details).toEqual({ chars: 43 });
  });

  it("is a parallel-safe core tool named think", () => {
    const tool = thinkTool();
    expect(tool).toMatchObject({ name: "think", concurrency: "parallel-safe" });
    expect(tool.guidance).toContain("plan");
  });
});
