import type { Logger } from "@hermes/agent";
import type { DeliveryRecord, Store } from "@hermes/store";
import type { AdapterContext, OutboundMessage, OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";
import type { InboundMessage } from "../core/inbound.js";
import type { IntakeRefusal } from "../core/intake-limits.js";
import type { StreamUpdate } from "../streaming/stream-update.js";
import type { ApiErrorKind } from "./openai-format.js";

export const API_PLATFORM = "api";

/** How one API request ended: the agent's answer, an error for the caller, or nothing (the caller went away). */
export type ApiOutcome = { kind: "answer"; text: string } | { kind: "error"; error: ApiErrorKind; message: string } | { kind: "abandoned" };

export interface ApiCall {
  /** A dm of platform `api`; its chat id is the conversation (one request at a time each). */
  message: InboundMessage;
  sessionKey: string;
  /** Aborted when the caller disconnects or the request timed out: the run is stopped, like /stop. */
  signal: AbortSignal;
  /** The current step's text so far, as the run streams it (stream requests only). */
  onStreamText?: (stepText: string) => void;
}

export interface ApiAdapterDeps {
  store: Pick<Store, "inbound" | "deliveries">;
  /** Drops the session's queued messages and stops its running answer (nothing is re-run later). */
  stopRun: (sessionKey: string) => Promise<void>;
  /** Where workers' stream updates come from (Redis, with REDIS_URL), heard while the adapter runs. */
  streamSource?: (onUpdate: (update: StreamUpdate) => void) => { close(): Promise<void> };
  logger: Logger;
}

interface PendingRequest {
  readonly messageId: string;
  readonly onStreamText?: (stepText: string) => void;
  /** The saved message's id, once it is known. */
  inboundId?: number;
  inbound: Promise<number | undefined>;
  settle(outcome: ApiOutcome): void;
  stopRun(): void;
}

type Origin = { kind: "mine"; delivery: DeliveryRecord; status?: string } | { kind: "gateway"; status?: string } | { kind: "other" };

const SHUTTING_DOWN = "The gateway is not taking API requests (it is a standby or shutting down); try again shortly.";

/**
 * The OpenAI-compatible API as a chat platform: each request is a message of a dm whose answer, delivered through the
 * outbox like any reply, resolves the request. Whatever else reaches the chat while it waits is judged by the
 * delivery it comes from, so a late reply of an earlier request or a busy acknowledgement never becomes the answer.
 */
export class ApiAdapter implements PlatformAdapter {
  readonly platform = API_PLATFORM;
  readonly textLimit = 1_000_000;
  private receive: AdapterContext["receive"] | undefined;
  private source: { close(): Promise<void> } | undefined;
  private readonly pending = new Map<string, PendingRequest>();
  private counter = 0;

  constructor(private readonly deps: ApiAdapterDeps) {}

  /** True while the gateway is active and this adapter takes requests. */
  get accepting(): boolean {
    return this.receive !== undefined;
  }

  async start(context: AdapterContext): Promise<void> {
    this.receive = context.receive;
    this.source ??= this.deps.streamSource?.((update) => this.streamed(update));
  }

  async stop(): Promise<void> {
    this.receive = undefined;
    // Their callers are told now, so nobody would get the answers: the runs are stopped rather than drained.
    for (const request of [...this.pending.values()]) {
      request.settle({ kind: "error", error: "unavailable", message: SHUTTING_DOWN });
      request.stopRun();
    }
    const source = this.source;
    this.source = undefined;
    await source?.close();
  }

  /** Hands the request's message to the gateway and waits for what answers it. */
  async submit(call: ApiCall): Promise<ApiOutcome> {
    const receive = this.receive;
    if (receive === undefined) return { kind: "error", error: "unavailable", message: SHUTTING_DOWN };
    if (call.signal.aborted) return { kind: "abandoned" };
    const chatId = call.message.chat.id;
    if (this.pending.has(chatId)) {
      return { kind: "error", error: "session_busy", message: "A request of this session is still being answered; send the next one when it has finished." };
    }
    let resolve!: (outcome: ApiOutcome) => void;
    const outcome = new Promise<ApiOutcome>((done) => {
      resolve = done;
    });
    let settled = false;
    // A command's output may be on its way out before the message's id is looked up: it waits for the id.
    let inboundKnown!: (id: number | undefined) => void;
    const stopRun = (): void => {
      this.deps.stopRun(call.sessionKey).catch((error: unknown) => this.deps.logger.warn("could not stop the run of an abandoned API request", { sessionKey: call.sessionKey, error }));
    };
    const request: PendingRequest = {
      messageId: call.message.messageId,
      ...(call.onStreamText && { onStreamText: call.onStreamText }),
      inbound: new Promise((known) => {
        inboundKnown = known;
      }),
      settle: (result) => {
        if (settled) return;
        settled = true;
        if (this.pending.get(chatId) === request) this.pending.delete(chatId);
        resolve(result);
      },
      stopRun,
    };
    this.pending.set(chatId, request);
    const abandon = (): void => {
      request.settle({ kind: "abandoned" });
      stopRun();
    };
    call.signal.addEventListener("abort", abandon, { once: true });
    // Not awaited: a hand-over that hangs (a command working inside it, a store that stalls) must not hold the answer
    // past the caller leaving or the request's timeout.
    void (async () => {
      try {
        await receive(call.message);
        // Left while the message was being queued: the stop above may have come before the run's job.
        if (call.signal.aborted) stopRun();
        request.inboundId = await this.inboundIdOf(call.message, call.sessionKey);
        inboundKnown(request.inboundId);
      } catch (error) {
        inboundKnown(undefined);
        this.deps.logger.error("an API request could not be handed to the gateway", { sessionKey: call.sessionKey, error });
        request.settle({ kind: "error", error: "internal", message: "The request could not be accepted; the operator's log has the cause." });
      }
    })();
    const result = await outcome;
    call.signal.removeEventListener("abort", abandon);
    return result;
  }

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    this.counter += 1;
    const sent: SendResult = { ok: true, messageId: `api-${this.counter}` };
    const request = this.pending.get(target.chatId);
    // Nobody waits any more (the caller went away): the reply stays in the transcript, which is all there is to do.
    if (request === undefined) return sent;
    const origin = await this.originOf(request, message.idempotencyKey);
    const failureNotice = message.idempotencyKey?.endsWith("n") === true;
    if (origin.kind === "mine") {
      if (failureNotice || origin.status === "failed") request.settle({ kind: "error", error: "run_failed", message: message.text });
      else if (origin.delivery.kind === "reply") request.settle({ kind: "answer", text: message.text });
      // A notice of the run itself (an approval prompt) is not its answer: the run goes on.
      else this.deps.logger.info("an API request's run sent a notice; it is not shown to the caller", { chatId: target.chatId });
    } else if (origin.kind === "gateway") {
      // A command's output or a hook's refusal answers a message that starts no run; a busy acknowledgement does not.
      if (origin.status === "failed") request.settle({ kind: "error", error: "internal", message: message.text });
      else if (origin.status === "ignored" || origin.status === "cancelled") request.settle({ kind: "answer", text: message.text });
    }
    return sent;
  }

  /** A run's stream update: the text of its current step so far, for the request of its chat. */
  streamed(update: StreamUpdate): void {
    const request = this.pending.get(update.chatId);
    if (request?.onStreamText === undefined) return;
    if (request.inboundId !== undefined && request.inboundId !== update.inboundId) return;
    request.onStreamText(update.text);
  }

  /** The bounded intake started no run for the message (HERMES_RATE_LIMIT, HERMES_MAX_QUEUED). */
  intakeRefused(message: InboundMessage, reason: IntakeRefusal): void {
    const request = this.pending.get(message.chat.id);
    if (request === undefined || request.messageId !== message.messageId) return;
    const text =
      reason === "queue_full"
        ? "Too many requests are waiting to be answered (HERMES_MAX_QUEUED); try again when they are done."
        : "Too many requests in the last minute (HERMES_RATE_LIMIT); try again shortly.";
    request.settle({ kind: "error", error: "rate_limited", message: text });
  }

  /** Which message a delivery answers: the request's own, another one (stale), or none (a gateway notice). */
  private async originOf(request: PendingRequest, idempotencyKey: string | undefined): Promise<Origin> {
    const deliveryId = /^d(\d+)[pn]/.exec(idempotencyKey ?? "")?.[1];
    const delivery = deliveryId === undefined ? undefined : await this.deps.store.deliveries.get(Number(deliveryId));
    if (delivery === undefined) return { kind: "other" };
    if (delivery.inboundId !== undefined) {
      const inbound = await this.deps.store.inbound.get(delivery.inboundId);
      if (inbound?.platform !== API_PLATFORM || inbound.messageId !== request.messageId) return { kind: "other" };
      return { kind: "mine", delivery, status: inbound.status };
    }
    const ownId = await request.inbound;
    const own = ownId === undefined ? undefined : await this.deps.store.inbound.get(ownId);
    return own === undefined ? { kind: "other" } : { kind: "gateway", status: own.status };
  }

  /** `recordIfNew` answers a message it has with the saved record, unchanged: that is the lookup by platform id. */
  private async inboundIdOf(message: InboundMessage, sessionKey: string): Promise<number> {
    const { record } = await this.deps.store.inbound.recordIfNew({ platform: message.platform, messageId: message.messageId, payload: JSON.stringify(message), sessionKey, status: "received" });
    return record.id;
  }
}
