import { scrubMemoryFences, type AgentCallbacks, type Logger } from "@hermes/agent";
import type { StreamTarget, StreamUpdate } from "./stream-update.js";
import { realPacerClock } from "../outbound/pacer-clock.js";

export interface StreamPublisherOptions {
  inboundId: number;
  target: StreamTarget;
  /** Hands an update on (in-process presenter or Redis); a throw is logged, never passed to the agent. */
  publish: (update: StreamUpdate) => void;
  /** At most one update per this many ms (default 250); the newest state always goes out in the end. */
  intervalMs?: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
  /** Runs `callback` after `ms`; returns a cancel function (default: an unref'd setTimeout). */
  schedule?: (callback: () => void, ms: number) => () => void;
  logger?: Logger;
}

export type StreamCallbacks = Pick<AgentCallbacks, "onTextDelta" | "onToolStart" | "onStep">;

export interface StreamPublisher {
  callbacks: StreamCallbacks;
  /** Publishes the newest state now if it has not gone out yet. */
  flush(): void;
  /** Publishes nothing more (the run ended; the final reply takes over). */
  stop(): void;
  /**
   * The run was stopped and no final reply comes: if anything was shown, it is shown once more without the status
   * line, or as "Stopped." where only a status showed, so no "⏳ Running …" stays for good. Then nothing more.
   */
  settle(): void;
}

const STOPPED_TEXT = "Stopped.";

/**
 * Turns a run's text deltas and tool starts into throttled stream updates: the current step's text so far and a
 * status line while a tool runs. Nothing goes out while there is nothing to show.
 */
export function createStreamPublisher(options: StreamPublisherOptions): StreamPublisher {
  const intervalMs = Math.max(0, options.intervalMs ?? 250);
  const now = options.now ?? (() => performance.now());
  const schedule = options.schedule ?? realPacerClock.schedule;
  let step: number | undefined;
  let text = "";
  let status: string | undefined;
  let published: { text: string; status: string | undefined } | undefined;
  let publishedAt: number | undefined;
  let cancelTimer: (() => void) | undefined;
  let stopped = false;
  let settled = false;

  const unpublished = (): boolean => {
    if (text.trim() === "" && status === undefined) return false;
    return published === undefined || published.text !== text || published.status !== status;
  };

  const publishNow = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
    if (stopped || !unpublished()) return;
    published = { text, status };
    publishedAt = now();
    const update: StreamUpdate = { inboundId: options.inboundId, ...options.target, text };
    if (status !== undefined) update.status = status;
    send(update);
  };

  function send(update: StreamUpdate): void {
    try {
      options.publish(update);
    } catch (error) {
      options.logger?.warn("could not publish a stream update", { inboundId: options.inboundId, error });
    }
  }

  const changed = (): void => {
    if (stopped || cancelTimer !== undefined || !unpublished()) return;
    const waitMs = publishedAt === undefined ? 0 : publishedAt + intervalMs - now();
    if (waitMs <= 0) return publishNow();
    cancelTimer = schedule(publishNow, waitMs);
  };

  // The agent isolates callbacks already; this guard keeps a bug here from even costing a log line per delta there.
  const guarded = (name: string, body: () => void): void => {
    try {
      body();
    } catch (error) {
      options.logger?.warn("stream callback failed; ignored", { callback: name, inboundId: options.inboundId, error });
    }
  };

  const callbacks: StreamCallbacks = {
    onTextDelta: (delta, info) =>
      guarded("onTextDelta", () => {
        if (info.step !== step) {
          step = info.step;
          text = "";
          status = undefined;
        }
        text += delta;
        changed();
      }),
    onToolStart: (event) => {
      guarded("onToolStart", () => {
        status = `Running ${event.toolName}…`;
        changed();
      });
      return undefined;
    },
    onStep: (event) =>
      guarded("onStep", () => {
        // Providers that do not stream deltas still show each step's text when it is complete.
        if (step !== undefined && event.step < step) return;
        // The step's raw text: the deltas came scrubbed of recalled memory, this must be too (the final reply is).
        const visible = scrubMemoryFences(event.text);
        if (visible.trim() === "") return;
        step = event.step;
        text = visible;
        changed();
      }),
  };

  const stop = (): void => {
    stopped = true;
    cancelTimer?.();
    cancelTimer = undefined;
  };

  const settle = (): void => {
    stop();
    if (settled || published === undefined) return;
    settled = true;
    const visible = text.trim() !== "" ? text : published.text.trim() !== "" ? published.text : STOPPED_TEXT;
    if (published.status === undefined && visible === published.text) return;
    send({ inboundId: options.inboundId, ...options.target, text: visible });
  };

  return { callbacks, flush: publishNow, stop, settle };
}
