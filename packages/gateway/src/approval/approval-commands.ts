import type { CommandContext, CommandDefinition } from "../commands/types.js";
import { decidedPromptText } from "./approval-prompt.js";
import type { ApprovalRequest } from "./approval-types.js";

type Verdict = "approve" | "deny";

const NOTHING_WAITING = "Nothing here is waiting for your approval.";

/**
 * `/approve [id] [always]` and `/deny [id]`: the typed form of the prompt's buttons (a press arrives as the same
 * command with the request's id). Without an id they answer the conversation's newest open request.
 */
export const approvalCommands: readonly CommandDefinition[] = [
  {
    name: "approve",
    usage: "/approve [always]",
    description: "let the tool call waiting for your approval run (always: for the rest of this conversation)",
    run: (context) => decide(context, "approve"),
  },
  {
    name: "deny",
    usage: "/deny",
    description: "refuse the tool call waiting for your approval",
    run: (context) => decide(context, "deny"),
  },
];

async function decide(context: CommandContext, verdict: Verdict): Promise<string> {
  const approvals = context.approvals;
  if (!approvals) return "Tool approval is off (HERMES_APPROVAL=none), so nothing waits for it.";
  const words = context.args.split(/\s+/).filter((word) => word.length > 0).map((word) => word.toLowerCase());
  const always = verdict === "approve" && words.includes("always");
  const id = words.find((word) => word !== "always");
  const request = id === undefined ? await approvals.latestPending(context.sessionKey, context.now()) : await approvals.get(id);
  // An id from another chat is treated as unknown: request ids must not let one chat probe another's.
  if (!request || request.platform !== context.message.platform || request.chatId !== context.message.chat.id) return NOTHING_WAITING;
  if (request.requesterId !== context.message.user.id) return "Only the person whose message started this can answer it.";
  if (closedText(request, context.now()) !== undefined) return answerClosed(context, request);
  const won = await approvals.decide(request.id, {
    status: verdict === "approve" ? "approved" : "denied",
    scope: always ? "session" : "once",
    decidedBy: context.message.user.id,
    decidedAt: context.now(),
  });
  if (!won) return answerClosed(context, (await approvals.get(request.id)) ?? request);
  const outcome = outcomeText(request.tool, verdict, always);
  return (await shownOnPrompt(context, request, outcome)) ? "" : outcome;
}

/**
 * A press on a prompt already settled (a second tap, a prompt left over after a timeout) makes the prompt show how it
 * ended, without buttons, rather than adding a message that says so.
 */
async function answerClosed(context: CommandContext, request: ApprovalRequest): Promise<string> {
  const closed = closedText(request, context.now()) ?? NOTHING_WAITING;
  return (await shownOnPrompt(context, request, endedText(request))) ? "" : closed;
}

/** A press: the prompt itself shows the outcome and loses its buttons, so nothing more is posted. */
async function shownOnPrompt(context: CommandContext, request: ApprovalRequest, outcome: string): Promise<boolean> {
  return context.editPressedMessage !== undefined && (await context.editPressedMessage(decidedPromptText(request.tool, request.summary, outcome)));
}

function endedText(request: ApprovalRequest): string {
  if (request.status === "approved") return outcomeText(request.tool, "approve", request.scope === "session");
  if (request.status === "denied") return outcomeText(request.tool, "deny", false);
  return `Not answered in time, or its run was stopped: the \`${request.tool}\` call was not run.`;
}

function outcomeText(tool: string, verdict: Verdict, always: boolean): string {
  if (verdict === "deny") return `Denied: the \`${tool}\` call will not run.`;
  return always ? `Approved for this conversation: your \`${tool}\` calls run without asking until /new.` : `Approved: the \`${tool}\` call runs now.`;
}

function closedText(request: ApprovalRequest, now: number): string | undefined {
  if (request.status === "approved") return "This request was already approved.";
  if (request.status === "denied") return "This request was already denied.";
  if (request.status === "expired" || request.expiresAt <= now) return "This request is no longer open (it timed out or its run was stopped).";
  return undefined;
}
