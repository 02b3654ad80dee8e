import { SpanKind } from "@opentelemetry/api";
import { errorMessageOf, errorTypeOf, GATEWAY_SPAN_NAMES, gatewayTracer, markSpanFailed } from "../tracing/gateway-tracer.js";
import { currentTraceCarrier } from "../tracing/trace-carrier.js";
import { findCommand, unknownCommandText } from "../commands/registry.js";
import type { CommandContext } from "../commands/types.js";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { InMemorySessionWaiters } from "../queue/session-waiters.js";
import { createWithSessionLock } from "../runtime/command-session-lock.js";
import { parseCommand, type ParsedCommand } from "./command.js";
import { missingIdentity, type InboundMessage } from "./inbound.js";
import { IntakeLimiter } from "./intake-limits.js";
import { isAddressed } from "./mention-gate.js";
import { isSharedSession, newSessionFor, sessionKeyFor } from "./session-key.js";
import type { GatewayOptions } from "./gateway-options.js";
export type { AuthorizationResult, GatewayOptions } from "./gateway-options.js";

// A message saved but not routed this long ago was dropped by a failure; a redelivery may route it again.
const STALE_RECEIVED_MS = 30_000;

const BUSY_ACK = "Got it. I'm still answering your previous message; I'll get to this one right after.";

/**
 * The platform-neutral front door: every adapter hands its messages to `receive`, which persists, deduplicates,
 * authorizes, gates, answers commands, routes to a session and enqueues an agent run.
 */
export class Gateway {
  private readonly now: () => number;
  /** Messages whose routing failed in this process (their redelivery must not be dropped as a duplicate). */
  private readonly unrouted = new Set<number>();
  private readonly intake: IntakeLimiter;
  private readonly withSessionLock: CommandContext["withSessionLock"];

  constructor(private readonly options: GatewayOptions) {
    this.now = options.now ?? Date.now;
    this.withSessionLock = options.withSessionLock ?? createWithSessionLock({ lock: new InMemorySessionLock(), waiters: new InMemorySessionWaiters(), logger: options.logger });
    this.intake = new IntakeLimiter({ ratePerMinute: options.limits?.ratePerMinute, maxQueued: options.limits?.maxQueued, now: this.now });
  }

  /**
   * One span per message handed in (no text in it). Its context is saved with the message, so the message's run and
   * reply join its trace wherever and whenever they happen; a run it enqueues also carries it in the job.
   */
  receive(message: InboundMessage): Promise<void> {
    // Without these the message cannot be saved or answered; refusing it here (resolved, so the adapter acknowledges
    // it) beats a database constraint failure that the platform would redeliver again and again.
    const missing = missingIdentity(message);
    if (missing !== undefined) {
      this.options.logger.warn("inbound message refused: a required field is empty", { platform: message.platform, field: missing });
      return Promise.resolve();
    }
    const attributes = { "messaging.system": message.platform, "messaging.operation.type": "receive", "messaging.message.id": message.messageId, "hermes.chat_type": message.chat.type };
    return gatewayTracer().startActiveSpan(GATEWAY_SPAN_NAMES.receive(message.platform), { kind: SpanKind.CONSUMER, attributes }, async (span) => {
      try {
        await this.receiveInSpan(message, (inboundId, duplicate) => {
          span.setAttributes({ "hermes.inbound_id": inboundId, "hermes.duplicate": duplicate });
        });
      } catch (error) {
        markSpanFailed(span, errorTypeOf(error), errorMessageOf(error));
        throw error;
      } finally {
        span.end();
      }
    });
  }

  private async receiveInSpan(message: InboundMessage, onRecorded: (inboundId: number, duplicate: boolean) => void): Promise<void> {
    const key = sessionKeyFor(message, this.options.sessionScope);
    const recorded = await this.options.store.inbound.recordIfNew({
      platform: message.platform,
      messageId: message.messageId,
      payload: JSON.stringify(message),
      sessionKey: key,
      status: "received",
      traceContext: currentTraceCarrier(),
    });
    onRecorded(recorded.record.id, !recorded.created);
    if (!recorded.created) {
      await this.redelivered(recorded.record, message, key);
      return;
    }
    this.options.onAccepted?.(message);
    await this.routeOrRemember(recorded.record.id, message, key);
  }

  /** Routing that throws leaves the message saved but unrouted; the platform's redelivery then routes it again. */
  private async routeOrRemember(inboundId: number, message: InboundMessage, key: string): Promise<void> {
    try {
      await this.route(inboundId, message, key);
      this.unrouted.delete(inboundId);
    } catch (error) {
      this.unrouted.add(inboundId);
      throw error;
    }
  }

  /**
   * A platform delivers a message again when we did not acknowledge it, e.g. because routing failed after it was
   * saved. A duplicate of a message still waiting ("queued") is enqueued again (idempotent); one stuck "received" for
   * a while is routed again. Anything else is a plain duplicate.
   */
  private async redelivered(record: { id: number; status: string; receivedAt: number; payload: string }, message: InboundMessage, key: string): Promise<void> {
    if (record.status === "queued") {
      await this.options.queue.enqueue({ inboundId: record.id, sessionKey: key, ...currentTraceCarrier() });
    } else if (record.status === "received" && (this.unrouted.has(record.id) || this.now() - record.receivedAt > STALE_RECEIVED_MS)) {
      this.options.logger.warn("routing a message that was saved but never routed", { inboundId: record.id, sessionKey: key });
      // The saved copy: it may hold a voice message's transcript already.
      await this.routeOrRemember(record.id, JSON.parse(record.payload) as InboundMessage, key);
    } else {
      this.options.logger.debug("duplicate inbound ignored", { platform: message.platform, messageId: message.messageId });
    }
  }

  /** After a restart: routes messages persisted but never routed, and re-enqueues runs that were pending. */
  async recover(records: ReadonlyArray<{ id: number; status: string; payload: string; sessionKey?: string }>): Promise<void> {
    for (const record of records) {
      const message = JSON.parse(record.payload) as InboundMessage;
      const key = record.sessionKey ?? sessionKeyFor(message, this.options.sessionScope);
      if (record.status === "received") await this.route(record.id, message, key);
      else if (record.status === "queued" || record.status === "running") await this.resume(record.id, message, key);
    }
  }

  private async route(inboundId: number, message: InboundMessage, key: string): Promise<void> {
    const { store } = this.options;
    const logger = this.options.logger.child({ sessionKey: key });
    const auth = await this.options.authorize(message);
    if (auth.kind !== "allowed") {
      await store.inbound.setStatus(inboundId, "ignored");
      if (auth.kind === "pairing") await this.notice(message, auth.reply);
      else logger.debug("message ignored", { reason: auth.reason, platform: message.platform, userId: message.user.id });
      this.options.markDone?.(message);
      return;
    }

    const command = parseCommand(message.text, this.options.botName(message.platform));
    const chatSettings = message.chat.type === "dm" ? undefined : await store.chatSettings.get(message.platform, message.chat.id);
    const known = command !== undefined && findCommand(command.name) !== undefined;
    if (!isAddressed(message, { mode: chatSettings?.mentionMode ?? "mention", isCommand: known || command?.addressedByName === true })) {
      await store.inbound.setStatus(inboundId, "ignored");
      this.options.markDone?.(message);
      return;
    }
    // Before the hooks, so a hook (a keyword blocker, say) judges what was said; a command's caption needs no transcript.
    const heard = command ? message : await this.withVoice(inboundId, message);
    if (heard === undefined) return;
    // Hooks see what the bot is about to act on: authorized and addressed (strangers and chatter never reach them).
    const received = await this.options.hooks.emit({ ...this.eventBase(message, key), type: "message:received", text: heard.text, messageId: message.messageId });
    if (received.blocked) {
      logger.info("message blocked by hook", { hook: received.hook, reason: received.reason });
      await store.inbound.setStatus(inboundId, "ignored");
      await this.notice(message, `Your message was not processed: ${received.reason}`);
      this.options.markDone?.(message);
      return;
    }
    if (command) {
      await store.inbound.setStatus(inboundId, "ignored");
      await this.runCommand(command, message, key, auth.via);
      this.options.markDone?.(message);
      return;
    }
    const admission = await this.admit(inboundId, heard, key, auth.via);
    if (!admission.admitted) return;
    await this.enqueue(inboundId, heard, key, admission.unanswered);
  }

  /** The saved message gets the transcript before its run is queued, so it is transcribed once wherever it runs. */
  private async withVoice(inboundId: number, message: InboundMessage): Promise<InboundMessage | undefined> {
    const outcome = await this.options.voice?.prepare(message);
    if (outcome === undefined) return message;
    await this.options.store.inbound.setPayload(inboundId, JSON.stringify(outcome.message));
    if (!outcome.run) await this.options.store.inbound.setStatus(inboundId, "ignored");
    if (outcome.notice !== undefined) await this.notice(message, outcome.notice);
    if (outcome.run) return outcome.message;
    this.options.markDone?.(message);
    return undefined;
  }

  /**
   * HERMES_RATE_LIMIT and HERMES_MAX_QUEUED bound what one person can queue up; commands are never limited (so /stop
   * and /new always work), nor is the console, which is the operator's own terminal. An admitted message brings the
   * session's unanswered count it was judged by, so the enqueue does not count again.
   */
  private async admit(inboundId: number, message: InboundMessage, key: string, via: "allowlist" | "paired" | "console"): Promise<{ admitted: false } | { admitted: true; unanswered?: number }> {
    if (!this.intake.enabled || via === "console") return { admitted: true };
    const unanswered = await this.options.store.inbound.unanswered(key);
    const verdict = this.intake.admit({ platform: message.platform, userId: message.user.id }, unanswered);
    if (verdict.admitted) return { admitted: true, unanswered };
    await this.options.store.inbound.setStatus(inboundId, "ignored");
    this.options.onIntakeRefused?.(message, verdict.reason);
    const fields = { reason: verdict.reason, platform: message.platform, userId: message.user.id, sessionKey: key };
    if (verdict.notice === undefined) this.options.logger.debug("message skipped: over an intake limit", fields);
    else {
      this.options.logger.info("message skipped: over an intake limit (the sender is told once a minute)", fields);
      await this.notice(message, verdict.notice);
    }
    this.options.markDone?.(message);
    return { admitted: false };
  }

  private async enqueue(inboundId: number, message: InboundMessage, key: string, unanswered?: number): Promise<void> {
    const { store } = this.options;
    const { session, created } = await store.sessions.getOrCreateActive(newSessionFor(message, key));
    if (created) await this.options.hooks.emit({ ...this.eventBase(message, key), type: "session:start", sessionId: session.id });
    const busy = unanswered ?? (await store.inbound.unanswered(key));
    await store.inbound.setStatus(inboundId, "queued");
    if (busy > 0) await this.notice(message, BUSY_ACK);
    this.options.typing.begin(`inbound:${inboundId}`, message.platform, this.targetOf(message));
    await this.options.queue.enqueue({ inboundId, sessionKey: key, ...currentTraceCarrier() });
  }

  /** Re-enqueues a message that was already accepted before a restart: no acknowledgement, no second session:start. */
  private async resume(inboundId: number, message: InboundMessage, key: string): Promise<void> {
    this.options.typing.begin(`inbound:${inboundId}`, message.platform, this.targetOf(message));
    await this.options.queue.enqueue({ inboundId, sessionKey: key });
  }

  private async runCommand(command: ParsedCommand, message: InboundMessage, key: string, via: "allowlist" | "paired" | "console"): Promise<void> {
    await this.options.hooks.emit({ ...this.eventBase(message, key), type: `command:${command.name}`, command: command.name, args: command.args });
    const definition = findCommand(command.name);
    if (!definition) {
      // A bare unknown command in a group is probably meant for another bot; one the bot was addressed with is not.
      if (message.chat.type === "dm" || command.addressedByName || message.mentionedBot) await this.notice(message, unknownCommandText(command.name));
      return;
    }
    let reply: string;
    try {
      reply = await definition.run({
        message,
        sessionKey: key,
        args: command.args,
        store: this.options.store,
        queue: this.options.queue,
        hooks: this.options.hooks,
        now: this.now,
        models: this.options.models,
        checkModel: this.options.checkModel,
        // The retried text is no longer a command, so it carries the command's addressing with it.
        resubmit: (text) => this.receive({ ...message, text, mentionedBot: true, messageId: `${message.messageId}:retry:${this.now()}` }),
        compress: this.options.compress,
        withSessionLock: this.withSessionLock,
        followUp: (text) => this.notice(message, text),
        authorization: via,
        sharedSession: isSharedSession(message, this.options.sessionScope),
        memory: this.options.memory,
        dailyBudgetUsd: this.options.limits?.dailyBudgetUsd,
        approvals: this.options.approvals,
        editPressedMessage: this.pressedMessageEditor(message),
      });
    } catch (error) {
      this.options.logger.error("command failed", { command: command.name, sessionKey: key, error });
      reply = `Sorry, /${command.name} failed. The error was logged for the bot's operator.`;
    }
    // A command with nothing to add (a press whose prompt now shows the outcome) posts nothing.
    if (reply !== "") await this.notice(message, reply);
  }

  private pressedMessageEditor(message: InboundMessage): ((text: string) => Promise<boolean>) | undefined {
    const { editMessage } = this.options;
    const pressed = message.action?.messageId;
    if (!editMessage || pressed === undefined) return undefined;
    const target = { chatId: message.chat.id, ...(message.threadId !== undefined && { threadId: message.threadId }) };
    return (text) => editMessage(message.platform, target, pressed, { text, format: "markdown" });
  }

  /** Sends a short gateway message (command output, acknowledgement, pairing instructions) to the chat. */
  async notice(message: InboundMessage, text: string): Promise<void> {
    const target = this.targetOf(message);
    await this.options.store.deliveries.enqueue({
      platform: message.platform,
      chatId: target.chatId,
      threadId: target.threadId,
      replyToMessageId: target.replyToMessageId,
      sessionKey: sessionKeyFor(message, this.options.sessionScope),
      text,
      kind: "notice",
    });
    // Not awaited: a flush may be waiting out another chat's retry, and intake must not wait behind it.
    this.options.delivery.flush().catch((error: unknown) =>
      this.options.logger.error("delivery flush failed", { error }),
    );
  }

  private targetOf(message: InboundMessage): { chatId: string; threadId?: string; replyToMessageId?: string } {
    // In groups a reply quotes the message it answers so the thread of conversation stays readable.
    // A button press has no message of its own to quote: its answer quotes the message the button is on.
    const replyTo = message.chat.type === "dm" ? undefined : message.replyToId ?? message.action?.messageId ?? message.messageId;
    return { chatId: message.chat.id, threadId: message.threadId, replyToMessageId: replyTo };
  }

  private eventBase(message: InboundMessage, key: string): { timestamp: number; sessionKey: string; platform: string; chatId: string; userId: string } {
    return { timestamp: this.now(), sessionKey: key, platform: message.platform, chatId: message.chat.id, userId: message.user.id };
  }
}
