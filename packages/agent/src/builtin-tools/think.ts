import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition } from "../tools/types.js";

const parameters = Type.Object({
  thought: Type.String({ description: "Your reasoning, plan or notes. Not shown to the user." }),
});

/** A scratchpad: the value is the thought itself, which stays in the conversation for the following steps. */
export function thinkTool(): AnyToolDefinition {
  return defineTool({
    name: "think",
    description:
      "Write down a thought: plan the next steps, reason about tool results or check a conclusion. " +
      "Changes nothing and fetches nothing.",
    guidance:
      "Use think before multi-step work to lay out a plan, after tool results that need weighing (conflicting " +
      "sources, an unexpected error, output that changes the plan) and before an irreversible action to check it " +
      "is right. Keep thoughts short and concrete; skip it for simple requests you can answer directly.",
    parameters,
    concurrency: "parallel-safe",
    handler: async (args) => ({ content: "Thought noted.", details: { chars: args.thought.length } }),
  });
}
