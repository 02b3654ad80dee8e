import type { Stream } from "node:stream";

const KEPT_LINES = 5;
const MAX_LINE = 500;

/** The last lines a stdio server wrote to stderr: the likeliest explanation of why it would not start or died. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";

  constructor(stream: Stream, onLine: (line: string) => void) {
    stream.on("data", (chunk: Buffer | string) => {
      const parts = (this.partial + chunk.toString()).split("\n");
      this.partial = (parts.pop() ?? "").slice(-MAX_LINE);
      for (const raw of parts) {
        const line = raw.trimEnd().slice(0, MAX_LINE);
        if (line.length === 0) continue;
        this.lines.push(line);
        if (this.lines.length > KEPT_LINES) this.lines.shift();
        onLine(line);
      }
    });
    // A pipe error only loses diagnostics; it must not become an unhandled 'error' event.
    stream.on("error", () => undefined);
  }

  last(): string | undefined {
    const lines = this.partial.trim() ? [...this.lines, this.partial.trim()] : this.lines;
    return lines.length > 0 ? lines.slice(-2).join(" | ") : undefined;
  }
}
