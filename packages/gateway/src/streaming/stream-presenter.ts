import type { Logger } from "@hermes/agent";
import type { OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";
import type { SendPacer } from "../outbound/pacer-types.js";
import { callSend, pacedSend } from "../outbound/send-chunk.js";
import { canEdit, editingInPlace, type EditingAdapter } from "./edit-in-place.js";
import { nextStreamAction, type StreamAction } from "./stream-layout.js";
import type { StreamUpdate } from "./stream-update.js";
import { realPacerClock } from "../outbound/pacer-clock.js";

/** Where the messages a streamed reply occupies are kept (store.streamParts), for the final delivery after a restart. */
export interface StreamPartsRecorder {
  record(inboundId: number, part: number, messageId: string): Promise<void>;
  /** The messages recorded for the reply so far: shown before a restart, or by the gateway that was active before. */
  list(inboundId: number): Promise<string[]>;
  /** Forgets them: the reply will not edit them (a notice of the run went out below them). */
  clear(inboundId: number): Promise<void>;
}

export interface StreamPresenterOptions {
  adapterFor: (platform: string) => PlatformAdapter | undefined;
  /** The pacer every send goes through; edits take its tokens too. */
  pacer: SendPacer;
  parts: StreamPartsRecorder;
  logger: Logger;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
  /** Runs `callback` after `ms`; returns a cancel function (default: an unref'd setTimeout). */
  schedule?: (callback: () => void, ms: number) => () => void;
  /** At most one edit per message per this many ms (default 1000). */
  editIntervalMs?: number;
  /** A stream without updates for this long is forgotten (default 10 minutes). */
  idleMs?: number;
  /** Aborted when the gateway stops: pacer waits end and nothing more is sent. */
  signal?: AbortSignal;
  /** False while this process is not the one that shows replies (a standby gateway): nothing more is sent or edited. */
  showing?: () => boolean;
}

interface Stream {
  inboundId: number;
  adapter: EditingAdapter;
  target: OutboundTarget;
  replyToMessageId?: string;
  latest: { text: string; status?: string };
  messageIds: string[];
  shown: string[];
  editedAt: number[];
  busy?: Promise<void>;
  cancelTimer?: () => void;
  /** A send or edit failed: nothing more is shown; the final delivery brings the answer. */
  broken: boolean;
  updatedAt: number;
  /** Text already shown above a notice of the run (see `cut`), left out of what follows it. */
  shownAbove?: string;
}

const DEFAULT_IDLE_MS = 10 * 60_000;

/** The update's text without what a cut left above (the same step going on); a new step's text is shown whole. */
function withoutShownAbove(stream: Stream, text: string): string {
  const above = stream.shownAbove;
  if (above === undefined || above === "") return text;
  if (text.startsWith(above)) return text.slice(above.length).replace(/^\s+/, "");
  if (above.startsWith(text)) return "";
  stream.shownAbove = undefined;
  return text;
}

/**
 * Shows replies while they are written: the first text as a message of its own, then edits of it with the newest text
 * (at most one per message per second, coalesced), continuing in a new message past the platform's limit.
 */
export class StreamPresenter {
  private readonly streams = new Map<number, Stream>();
  /**
   * Finished inbound ids, when, and their messages: an update arriving late never starts a second stream, and a
   * delivery tried again (the first attempt failed) edits the same messages even if recording them failed.
   */
  private readonly finished = new Map<number, { at: number; messageIds: Promise<string[]> }>();
  private readonly now: () => number;
  private readonly schedule: (callback: () => void, ms: number) => () => void;
  private readonly editIntervalMs: number;
  private readonly idleMs: number;
  private stopped = false;

  constructor(private readonly options: StreamPresenterOptions) {
    this.now = options.now ?? (() => performance.now());
    this.schedule = options.schedule ?? realPacerClock.schedule;
    this.editIntervalMs = Math.max(0, options.editIntervalMs ?? 1000);
    this.idleMs = Math.max(1, options.idleMs ?? DEFAULT_IDLE_MS);
  }

  update(update: StreamUpdate): void {
    if (this.stopped) return;
    this.forgetIdle();
    if (this.finished.has(update.inboundId)) return;
    let stream = this.streams.get(update.inboundId);
    if (!stream) {
      const adapter = this.options.adapterFor(update.platform);
      // Platforms that cannot edit get the reply in one piece from the delivery service.
      if (!adapter || !canEdit(adapter)) return;
      stream = this.open(update, adapter);
      this.adopt(stream);
    }
    const text = withoutShownAbove(stream, update.text);
    stream.latest = update.status === undefined ? { text } : { text, status: update.status };
    stream.updatedAt = this.now();
    this.advance(stream);
  }

  /** Ends the stream of `inboundId` (later updates are ignored), waits for its send or edit in flight, and returns its message ids. */
  async finish(inboundId: number): Promise<string[]> {
    this.forgetIdle();
    const done = this.finished.get(inboundId);
    if (done) return [...(await done.messageIds)];
    const stream = this.streams.get(inboundId);
    this.streams.delete(inboundId);
    stream?.cancelTimer?.();
    const messageIds = stream ? Promise.resolve(stream.busy).then(() => [...stream.messageIds], () => [...stream.messageIds]) : Promise.resolve([]);
    this.finished.set(inboundId, { at: this.now(), messageIds });
    return [...(await messageIds)];
  }

  /**
   * A notice of the run (an approval prompt) is about to go out: what was streamed stays above it as it is, and the
   * stream goes on in new messages below it, so the answer is not written into a message above the prompt (an edit
   * notifies nobody). Text shown already is not repeated below.
   */
  async cut(inboundId: number): Promise<void> {
    const stream = this.streams.get(inboundId);
    if (stream) {
      stream.cancelTimer?.();
      stream.cancelTimer = undefined;
      await stream.busy;
      // The text above is brought up to date (without the status line) before the notice goes out below it.
      const last = stream.broken || !this.current(stream) ? undefined : nextStreamAction({ text: stream.latest.text, shown: stream.shown }, stream.adapter.textLimit);
      if (last?.kind === "edit") await this.perform(stream, last, true);
      stream.shownAbove = stream.shown.length > 0 ? [stream.shownAbove ?? "", stream.latest.text].join("") : stream.shownAbove;
      stream.messageIds = [];
      stream.shown = [];
      stream.editedAt = [];
      stream.latest = { text: "" };
    }
    await this.options.parts.clear(inboundId);
  }

  /** The reply's final delivery is out: a later delivery for the same inbound message must not edit its messages. */
  release(inboundId: number): void {
    const done = this.finished.get(inboundId);
    if (done) done.messageIds = Promise.resolve([]);
  }

  /** Shows nothing more and waits for the sends and edits in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const stream of streams) stream.cancelTimer?.();
    await Promise.all(streams.map((stream) => stream.busy));
  }

  private open(update: StreamUpdate, adapter: EditingAdapter): Stream {
    const target: OutboundTarget = { chatId: update.chatId };
    if (update.threadId !== undefined) target.threadId = update.threadId;
    const stream: Stream = { inboundId: update.inboundId, adapter, target, latest: { text: "" }, messageIds: [], shown: [], editedAt: [], broken: false, updatedAt: this.now() };
    if (update.replyToMessageId !== undefined) stream.replyToMessageId = update.replyToMessageId;
    this.streams.set(update.inboundId, stream);
    return stream;
  }

  /**
   * A reply streamed before (a restart, or the gateway active before this one, mid-stream; the run goes on or runs
   * again) goes on in the messages it already occupies: a second copy would leave the first with stale text and its
   * status line for good.
   */
  private adopt(stream: Stream): void {
    const adopting = this.options.parts
      .list(stream.inboundId)
      .then(
        (messageIds) => {
          stream.messageIds = [...messageIds];
          // Unknown text: every adopted message is edited, and not before a full interval (it may just have been).
          stream.shown = messageIds.map(() => "");
          stream.editedAt = messageIds.map(() => this.now());
        },
        (error: unknown) => {
          stream.broken = true;
          this.options.logger.warn("could not read whether a reply was streamed before; the answer arrives as a normal message", { inboundId: stream.inboundId, error });
        },
      )
      .finally(() => {
        stream.busy = undefined;
        this.advance(stream);
      });
    stream.busy = adopting;
  }

  /** Memory stays bounded: streams nobody finished (a run that died) and old finished marks are dropped. */
  private forgetIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [inboundId, done] of this.finished) if (done.at < cutoff) this.finished.delete(inboundId);
    for (const [inboundId, stream] of this.streams) {
      if (stream.updatedAt >= cutoff || stream.busy) continue;
      stream.cancelTimer?.();
      this.streams.delete(inboundId);
      // A late update must not open a second stream; the final delivery still finds its messages.
      this.finished.set(inboundId, { at: this.now(), messageIds: Promise.resolve([...stream.messageIds]) });
    }
  }

  /** Takes the next step towards the newest state, one send or edit at a time per stream. */
  private advance(stream: Stream): void {
    try {
      this.step(stream);
    } catch (error) {
      // A bug (say an adapter with an invalid text limit) ends this stream only; the final delivery still goes out.
      stream.broken = true;
      this.options.logger.error("streaming a reply crashed", { inboundId: stream.inboundId, error });
    }
  }

  private step(stream: Stream): void {
    if (stream.busy || stream.cancelTimer || stream.broken || !this.current(stream)) return;
    const action = nextStreamAction({ ...stream.latest, shown: stream.shown }, stream.adapter.textLimit);
    if (!action) return;
    const later = (waitMs: number): void => {
      // Coalescing: when the timer fires, the step is worked out again from the newest state.
      stream.cancelTimer = this.schedule(() => {
        stream.cancelTimer = undefined;
        this.advance(stream);
      }, waitMs);
    };
    if (action.kind === "edit") {
      const waitMs = (stream.editedAt[action.part] ?? 0) + this.editIntervalMs - this.now();
      if (waitMs > 0) return later(waitMs);
    }
    // Only the first message waits its turn like a reply. Every later step is best effort: it never queues ahead of the
    // chat's replies nor takes its last token (Telegram counts edits against a group's 20 a minute), and is tried again.
    const paced = action.kind === "send" && action.part === 0;
    if (!paced && !this.options.pacer.tryAcquire(stream.adapter.platform, stream.target.chatId)) return later(Math.max(1, this.editIntervalMs));
    const busy = this.perform(stream, action, paced).finally(() => {
      stream.busy = undefined;
      this.advance(stream);
    });
    stream.busy = busy;
  }

  private current(stream: Stream): boolean {
    return !this.stopped && this.streams.get(stream.inboundId) === stream && !this.options.signal?.aborted && (this.options.showing?.() ?? true);
  }

  /** `paced`: waits for the pacer first; otherwise its tokens are taken already. */
  private async perform(stream: Stream, action: NonNullable<StreamAction>, paced: boolean): Promise<void> {
    const message = { text: action.text, format: "plain" as const };
    const adapter = action.kind === "send" ? stream.adapter : editingInPlace(stream.adapter, stream.messageIds[action.part] ?? "");
    const target = action.part === 0 && action.kind === "send" && stream.replyToMessageId !== undefined ? { ...stream.target, replyToMessageId: stream.replyToMessageId } : stream.target;
    const pacing = { pacer: this.options.pacer, ...(this.options.signal ? { signal: this.options.signal } : {}) };
    const result: SendResult = paced ? await pacedSend(adapter, target, message, pacing) : await callSend(adapter, target, message);
    if (!result.ok) return this.breakOff(stream, action, result.error, result.retryAfterMs);
    if (action.kind === "edit") {
      stream.shown[action.part] = action.text;
      stream.editedAt[action.part] = this.now();
      return;
    }
    if (result.messageId === undefined) return this.breakOff(stream, action, "the platform returned no message id to edit");
    stream.messageIds[action.part] = result.messageId;
    stream.shown[action.part] = action.text;
    stream.editedAt[action.part] = this.now();
    try {
      await this.options.parts.record(stream.inboundId, action.part, result.messageId);
    } catch (error) {
      this.options.logger.warn("could not record a streamed message; after a restart its reply may be sent again", { inboundId: stream.inboundId, part: action.part, error });
    }
  }

  private breakOff(stream: Stream, action: NonNullable<StreamAction>, error: string, retryAfterMs?: number): void {
    stream.broken = true;
    if (retryAfterMs !== undefined) this.options.pacer.pause(stream.adapter.platform, stream.target.chatId, Math.max(0, retryAfterMs));
    if (this.options.signal?.aborted) return;
    this.options.logger.warn("streaming a reply stopped; the answer arrives as a normal message", {
      inboundId: stream.inboundId,
      platform: stream.adapter.platform,
      chatId: stream.target.chatId,
      failed: action.kind,
      reason: error,
    });
  }
}
