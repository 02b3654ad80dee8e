/** Where a process's log lines for the operator's terminal go; `process.stderr` in the apps. */
export interface TextStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface StderrSinkOptions {
  stream: TextStream;
  /** Human lines (pino-pretty) instead of JSON. */
  pretty: boolean;
  colorize: boolean;
  mask: (text: string) => string;
}

/**
 * The stderr side of the log. JSON lines arrive already masked; pretty lines are masked again after formatting,
 * because pino-pretty unescapes strings and prints stacks raw.
 */
export async function createStderrSink(options: StderrSinkOptions): Promise<{ write(line: string): void }> {
  const { stream, mask } = options;
  if (!options.pretty) return { write: (line) => void stream.write(line) };
  // Loaded only for a terminal: piped and container output never pays for it at start-up.
  const { prettyFactory } = await import("pino-pretty");
  const format = prettyFactory({
    colorize: options.colorize,
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
    errorLikeObjectKeys: ["err", "error", "cause"],
  });
  return { write: (line) => void stream.write(mask(format(line))) };
}
