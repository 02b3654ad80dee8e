import { randomBytes } from "node:crypto";
import { abortableSleep, type Logger, type ToolGate, type ToolStartEvent } from "@hermes/agent";
import type { NewDelivery } from "@hermes/store";
import type { InboundMessage } from "../core/inbound.js";
import { API_PLATFORM } from "../api/api-adapter.js";
import { RunAbortedError } from "../queue/types.js";
import { approvalButtons, approvalPromptText, approvalSummary, duration } from "./approval-prompt.js";
import type { ApprovalRequest, ApprovalsPort } from "./approval-types.js";

export interface ApprovalGateOptions {
  approvals: ApprovalsPort;
  deliveries: { enqueue(delivery: NewDelivery): Promise<unknown> };
  /** HERMES_APPROVAL: the tools whose calls wait for the person who asked. */
  tools: ReadonlySet<string>;
  timeoutMs: number;
  /** Tells the gateway a notice for this inbound message is in the outbox (it sends at once, not at the run's end). */
  announce(inboundId: number): void;
  logger: Logger;
  now?: () => number;
  /** Called once per request with how it ended (for `hermes_approvals_total`). */
  onOutcome?(tool: string, outcome: ApprovalOutcome): void;
  /** How often the decision is read back from the store (a press lands in another process, maybe another machine). */
  pollMs?: number;
}

export type ApprovalOutcome = "approved" | "denied" | "timed_out" | "stopped" | "failed";

export interface GatedRun {
  inboundId: number;
  sessionKey: string;
  sessionId: string;
  message: InboundMessage;
  /** Where the run's replies go (the reply's chat, thread and quoted message). */
  target: Pick<NewDelivery, "platform" | "chatId" | "threadId" | "replyToMessageId">;
  signal: AbortSignal;
}

const DEFAULT_POLL_MS = 400;

/**
 * The `onToolStart` gate that asks before each call of an approval tool (after the tool:before hooks let it through).
 * The decision lives in the store, so it holds wherever the run and the press are handled, and after a restart the
 * same call waits on the request it already sent instead of asking twice.
 */
export function createApprovalGate(options: ApprovalGateOptions) {
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;

  return (run: GatedRun) => async (event: ToolStartEvent): Promise<ToolGate> => {
    if (!options.tools.has(event.toolName)) return undefined;
    // An API caller has no chat to see a prompt in nor a way to answer it: waiting out the timeout would only delay
    // the same refusal.
    if (run.target.platform === API_PLATFORM) {
      options.onOutcome?.(event.toolName, "denied");
      return { block: true, reason: `Nobody can approve ${event.toolName} calls over the OpenAI-compatible API, so this call did not run. Say so, and suggest doing it from a chat.` };
    }
    try {
      if (await options.approvals.grantedForSession(run.sessionId, event.toolName, run.message.user.id)) return undefined;
      const summary = approvalSummary(event.toolName, event.arguments);
      const request = (await pendingFromEarlierAttempt(run, event.toolName, summary)) ?? (await ask(run, event.toolName, summary));
      const decided = await waitForDecision(request, run.signal);
      const outcome = outcomeOf(decided, run.signal);
      if (outcome !== undefined) options.onOutcome?.(event.toolName, outcome);
      return await verdict(decided, run);
    } catch (error) {
      options.onOutcome?.(event.toolName, "failed");
      // Fails closed: a call that needs approval never runs because asking went wrong (say the database is away).
      options.logger.error("could not ask for approval; the tool call is refused", { tool: event.toolName, inboundId: run.inboundId, error });
      return { block: true, reason: `Approval for this ${event.toolName} call could not be asked (an internal error), so it did not run. Tell the user; they can try again.` };
    }
  };

  /** A run re-run after a crash or restart finds the request it sent before, still open. */
  async function pendingFromEarlierAttempt(run: GatedRun, tool: string, summary: string): Promise<ApprovalRequest | undefined> {
    const pending = await options.approvals.latestPending(run.sessionKey, now());
    return pending && pending.inboundId === run.inboundId && pending.tool === tool && pending.summary === summary ? pending : undefined;
  }

  async function ask(run: GatedRun, tool: string, summary: string): Promise<ApprovalRequest> {
    const createdAt = now();
    const request: ApprovalRequest = {
      id: randomBytes(6).toString("hex"),
      inboundId: run.inboundId,
      sessionKey: run.sessionKey,
      sessionId: run.sessionId,
      platform: run.target.platform,
      chatId: run.target.chatId,
      ...(run.target.threadId !== undefined && { threadId: run.target.threadId }),
      requesterId: run.message.user.id,
      tool,
      summary,
      createdAt,
      expiresAt: createdAt + options.timeoutMs,
      status: "pending",
    };
    await options.approvals.create(request);
    await notify(run, approvalPromptText(tool, summary, options.timeoutMs), approvalButtons(request.id));
    options.logger.info("tool call waits for approval", { approvalId: request.id, tool, sessionKey: run.sessionKey, inboundId: run.inboundId });
    return request;
  }

  async function notify(run: GatedRun, text: string, buttons?: NewDelivery["buttons"]): Promise<void> {
    await options.deliveries.enqueue({ ...run.target, inboundId: run.inboundId, sessionKey: run.sessionKey, text, kind: "notice", ...(buttons && { buttons }) });
    options.announce(run.inboundId);
  }

  /** Resolves with the request once decided; on timeout or a stopped run it is closed as expired here. */
  async function waitForDecision(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalRequest> {
    for (;;) {
      const current = await options.approvals.get(request.id);
      // Gone from the store (deleted by hand): nobody can answer it any more, and a loop on it would never end.
      if (!current) return { ...request, status: "expired" };
      if (current.status !== "pending") return current;
      if (signal.aborted) {
        // Handed over (a shutdown, a lost lease): the run runs again and waits on this same request. Stopped: closed.
        if (stoppedByPerson(signal)) await options.approvals.decide(request.id, { status: "expired", decidedAt: now() });
        return current;
      }
      if (now() >= current.expiresAt) {
        if (await options.approvals.decide(request.id, { status: "expired", decidedAt: now() })) return { ...current, status: "expired" };
        continue; // decided in the same instant: that decision stands
      }
      await abortableSleep(Math.min(pollMs, Math.max(1, current.expiresAt - now())), signal);
    }
  }

  async function verdict(request: ApprovalRequest, run: GatedRun): Promise<ToolGate> {
    if (request.status === "approved") return undefined;
    if (run.signal.aborted) return { block: true, reason: "The run was stopped while this call waited for approval; it did not run." };
    if (request.status === "denied") {
      options.logger.info("tool call denied", { approvalId: request.id, tool: request.tool });
      return { block: true, reason: `The user denied this ${request.tool} call, so it did not run. Do not try it again unless they ask; ask them what they would like instead.` };
    }
    options.logger.info("tool call approval timed out", { approvalId: request.id, tool: request.tool });
    await notify(run, `No answer within ${duration(options.timeoutMs)}: the \`${request.tool}\` call was not run.`);
    return { block: true, reason: `The user did not answer the approval request within ${duration(options.timeoutMs)}, so this ${request.tool} call did not run.` };
  }
}

/** Undefined while the request is still open for the re-run of a handed-over run, which counts how it ends. */
function outcomeOf(request: ApprovalRequest, signal: AbortSignal): ApprovalOutcome | undefined {
  if (request.status === "approved") return "approved";
  if (signal.aborted) return request.status === "pending" && !stoppedByPerson(signal) ? undefined : "stopped";
  return request.status === "denied" ? "denied" : "timed_out";
}

function stoppedByPerson(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  return reason instanceof RunAbortedError && reason.abortCause === "stop";
}
