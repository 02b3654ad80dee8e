import type { App, Receiver, ReceiverEvent } from "@slack/bolt";
import type { Logger } from "@hermes/agent";
import type { HttpHandler, HttpRequestInfo } from "@hermes/gateway";
import { unreadableBody } from "./event-shape.js";
import { verifySlackRequest, type RefusalReason } from "./request-signature.js";
import { isRecord } from "./slack-events.js";

export interface SlackHttpReceiverOptions {
  signingSecret: string;
  logger: Logger;
  now: () => number;
  /** Called for every refused request (bad signature, stale timestamp), e.g. to count it in metrics. */
  onRefused: (reason: RefusalReason) => void;
  /**
   * How long a request waits for its message to be handed to the gateway (persisted) before Slack is answered anyway.
   * Slack wants an answer within 3 s and retries otherwise.
   */
  ackDeadlineMs?: number;
  /**
   * Takes an interactivity payload (a button press) that came to /slack/events: Bolt's default puts every Request URL
   * there, so an app set up that way still gets its presses.
   */
  onInteraction?: (payload: Record<string, unknown>) => Promise<HttpResult>;
}

type HttpResult = Awaited<ReturnType<HttpHandler>>;

const DEFAULT_ACK_DEADLINE_MS = 2_500;
const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };
const TEXT_HEADERS = { "content-type": "text/plain; charset=utf-8" };

/**
 * Bolt's Receiver for HTTP events served by the gateway's own HTTP server (`POST /slack/events`). It verifies every
 * request itself, answers `url_verification`, and hands events to Bolt. Slack is answered once the event's message is
 * persisted, or after `ackDeadlineMs` at the latest, so it never waits for the agent and a message is normally never
 * acknowledged before it is safe; a failure to persist answers 500 so that Slack delivers the event again.
 */
export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  private accepting = false;
  private readonly ackDeadlineMs: number;

  constructor(private readonly options: SlackHttpReceiverOptions) {
    this.ackDeadlineMs = options.ackDeadlineMs ?? DEFAULT_ACK_DEADLINE_MS;
  }

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {
    this.accepting = true;
  }

  async stop(): Promise<void> {
    this.accepting = false;
  }

  readonly handle = async (request: HttpRequestInfo): Promise<HttpResult> => {
    const app = this.app;
    // While stopping, 503 makes Slack deliver the event again later instead of losing it.
    if (!app || !this.accepting) return { status: 503, body: "not accepting events\n", headers: TEXT_HEADERS };
    const check = verifySlackRequest({ signingSecret: this.options.signingSecret, headers: request.headers, rawBody: request.rawBody, nowMs: this.options.now() });
    if (!check.ok) {
      this.options.onRefused(check.reason);
      this.options.logger.warn("slack request refused", { reason: check.reason });
      return { status: 401, body: "invalid request signature\n", headers: TEXT_HEADERS };
    }
    const body = parseBody(request);
    if (!body) return { status: 400, body: "unreadable body\n", headers: TEXT_HEADERS };
    if (body.type === "url_verification") {
      return { status: 200, body: JSON.stringify({ challenge: typeof body.challenge === "string" ? body.challenge : "" }), headers: JSON_HEADERS };
    }
    if (body.type === "block_actions" && this.options.onInteraction) return this.options.onInteraction(body);
    const unreadable = unreadableBody(body);
    if (unreadable === "not an Events API event") {
      this.options.logger.debug("slack request without an event ignored", { type: typeof body.type === "string" ? body.type : undefined });
      return ackResponse(undefined);
    }
    if (unreadable) {
      this.options.logger.warn("slack event refused: it cannot be read", { reason: unreadable });
      return { status: 400, body: `unreadable event: ${unreadable}\n`, headers: TEXT_HEADERS };
    }
    return this.dispatch(app, body, request.headers);
  };

  private async dispatch(app: App, body: Record<string, unknown>, headers: Readonly<Record<string, string>>): Promise<HttpResult> {
    let ackBody: unknown;
    const retryNum = Number(headers["x-slack-retry-num"]);
    const event: ReceiverEvent = {
      body,
      // Bolt acknowledges events before running listeners; the HTTP answer waits for the listeners instead (below).
      ack: async (response?: unknown) => {
        ackBody = response;
      },
      retryNum: Number.isInteger(retryNum) ? retryNum : undefined,
      retryReason: headers["x-slack-retry-reason"],
    };
    const processing = app.processEvent(event).then(
      () => ({ kind: "done" as const }),
      (error: unknown) => ({ kind: "failed" as const, error }),
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<{ kind: "deadline" }>((resolve) => {
      timer = setTimeout(() => resolve({ kind: "deadline" }), this.ackDeadlineMs);
      timer.unref();
    });
    const first = await Promise.race([processing, deadline]);
    clearTimeout(timer);
    if (first.kind === "failed") {
      this.options.logger.error("slack event failed; Slack will deliver it again", { error: describe(first.error) });
      return { status: 500, body: "event not processed\n", headers: TEXT_HEADERS };
    }
    if (first.kind === "deadline") {
      this.options.logger.warn("slack event still being handed over after the acknowledgement deadline; acknowledged anyway");
      void processing.then((late) => {
        if (late.kind === "failed") this.options.logger.error("slack event failed after it was acknowledged", { error: describe(late.error) });
      });
    }
    return ackResponse(ackBody);
  }
}

function parseBody(request: HttpRequestInfo): Record<string, unknown> | undefined {
  const raw = request.rawBody.toString("utf8");
  const type = request.headers["content-type"] ?? "";
  try {
    if (type.includes("application/x-www-form-urlencoded")) {
      const form = new URLSearchParams(raw);
      const payload = form.get("payload");
      if (payload !== null) {
        const parsed: unknown = JSON.parse(payload);
        return isRecord(parsed) ? parsed : undefined;
      }
      return Object.fromEntries(form.entries());
    }
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function ackResponse(body: unknown): HttpResult {
  if (body === undefined || body === "") return { status: 200, body: "", headers: TEXT_HEADERS };
  if (typeof body === "string") return { status: 200, body, headers: TEXT_HEADERS };
  return { status: 200, body: JSON.stringify(body), headers: JSON_HEADERS };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
