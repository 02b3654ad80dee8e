import { bootstrap, ConsoleAdapter, CONSOLE_CHAT_ID, onShutdownSignal, reportIssue, sessionKeyFor, startGatewayProcess, type GatewayProcess } from "@hermes/gateway";

export interface ChatIo {
  env: Record<string, string | undefined>;
  cwd: string;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  errors: NodeJS.WriteStream;
}

/**
 * `npm run chat`: the terminal as a chat platform of the gateway. Messages go through the same pipeline as Telegram's
 * (sessions in SQLite, commands, hooks, the queue), so the conversation persists across runs and, with REDIS_URL, is
 * answered by BullMQ workers. Returns the process exit code.
 */
export async function runChat(io: ChatIo): Promise<number> {
  const interactive = io.input.isTTY === true;
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.errors, logName: "chat", stderrLevel: interactive ? undefined : "error" });
  if (!boot.ok) return boot.exitCode;
  const { config, logger, metrics, tracing } = boot.value;

  let running: GatewayProcess | undefined;
  const consoleKey = sessionKeyFor({
    platform: "console",
    chat: { id: CONSOLE_CHAT_ID, type: "dm" },
    user: { id: "local" },
    messageId: "",
    text: "",
    attachments: [],
    mentionedBot: true,
    timestamp: 0,
  });
  const adapter = new ConsoleAdapter({
    input: io.input,
    output: io.output,
    interactive,
    waitUntilIdle: async () => {
      await running?.waitIdle(consoleKey, { orWaitingForApproval: true });
    },
  });
  if (interactive) io.output.write(`Hermes — ${config.model?.model ?? "model set on the workers"} — /help lists commands, /exit quits\n`);

  // The handler is installed before the gateway starts: its adapters take the first message while start-up finishes
  // (the startup hooks), so a Ctrl+C that soon must already be a stop, not the default kill.
  let signalled = false;
  const stopChat = (): void => {
    (async () => {
      if ((await running?.store.inbound.unanswered(consoleKey)) ?? 0) {
        // The person pressed Ctrl+C: a stop, not a crash, so the message is not answered again on the next start.
        await running?.interrupt(consoleKey);
        io.output.write("Stopped.\n");
      }
      await adapter.stop();
    })().catch((error: unknown) => {
      io.errors.write(`error while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
      void adapter.stop();
    });
  };
  const release = onShutdownSignal(() => {
    signalled = true;
    if (running) stopChat();
  });

  const started = await startGatewayProcess({ config, logger, adapters: [adapter], http: false, metrics });
  if (!started.ok) {
    release();
    return reportIssue(io.errors, started.issue);
  }
  running = started.process;
  if (signalled) stopChat();
  await adapter.finished;
  release();
  // Interrupted: don't wait for answers in progress (they are re-run on the next start).
  await running.stop({ drainMs: signalled ? 0 : 10_000 });
  await tracing.shutdown();
  if (adapter.failure) {
    io.errors.write(`hermes chat: a message could not be processed: ${adapter.failure.message}\n`);
    return 1;
  }
  return signalled ? 130 : 0;
}
