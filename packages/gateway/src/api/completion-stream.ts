import type { ServerResponse } from "node:http";
import { chunkBody, sseEvent, type ApiError, type CompletionHead, type CompletionUsage } from "./openai-format.js";
import { StreamedText } from "./streamed-text.js";

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" };

/**
 * One `stream: true` answer as server-sent `chat.completion.chunk` events. The stream opens with the first text, so an
 * error before it (a refusal, a failed run) still gets its HTTP status; after that an error is an event of its own.
 */
export class CompletionStream {
  private readonly streamed = new StreamedText();
  private opened = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly head: CompletionHead,
  ) {}

  /** The run's current step text so far. */
  stepText(text: string): void {
    const delta = this.streamed.update(text);
    if (delta !== "") this.write(chunkBody(this.head, { delta: { content: delta } }));
  }

  /** The final reply's remainder, the closing chunk, the usage when asked for, and `[DONE]`. */
  finish(finalText: string, usage: CompletionUsage | undefined): void {
    const delta = this.streamed.finish(finalText);
    if (delta !== "") this.write(chunkBody(this.head, { delta: { content: delta } }));
    this.write(chunkBody(this.head, { finish: "stop" }));
    if (usage) this.write(chunkBody(this.head, { usage }));
    this.write("[DONE]");
    this.response.end();
  }

  /** Ends with `error`: as the HTTP answer when nothing was streamed yet, else as a last event. */
  fail(error: ApiError): void {
    if (this.response.writableEnded || this.response.destroyed) return;
    if (!this.opened) {
      this.response.writeHead(error.status, { "content-type": "application/json", ...error.headers }).end(JSON.stringify(error.body));
      return;
    }
    this.response.end(sseEvent(error.body));
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.response.writeHead(200, SSE_HEADERS);
    this.response.write(sseEvent(chunkBody(this.head, { delta: { role: "assistant", content: "" } })));
  }

  private write(data: unknown): void {
    if (this.response.writableEnded || this.response.destroyed) return;
    this.open();
    this.response.write(sseEvent(data));
  }
}
