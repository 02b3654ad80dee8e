import os from "node:os";
import { BUILTIN_TOOL_NAMES, DEFAULT_SAFE_TOOLS } from "@hermes/agent";
import { configSecrets, createAgentFromConfig, createGatewayLogger, formatConfigIssues, loadConfig } from "@hermes/gateway";
import { Conversation } from "./conversation.js";
import { runInteractiveChat } from "./interactive-chat.js";
import { runPipedChat } from "./piped-chat.js";

export interface ChatIo {
  env: Record<string, string | undefined>;
  cwd: string;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  errors: NodeJS.WriteStream;
}

/** `npm run chat`: a terminal conversation with the agent. Returns the process exit code. */
export async function runChat(io: ChatIo): Promise<number> {
  const loaded = await loadConfig({
    env: io.env,
    cwd: io.cwd,
    homeDir: os.homedir(),
    knownTools: BUILTIN_TOOL_NAMES,
    defaultTools: DEFAULT_SAFE_TOOLS,
  });
  for (const warning of loaded.warnings) io.errors.write(`warning: ${warning}\n`);
  if (!loaded.ok) {
    io.errors.write(`${formatConfigIssues(loaded.errors)}\n`);
    return 2;
  }
  const config = loaded.config;
  const interactive = io.input.isTTY === true;
  const logger = createGatewayLogger({
    level: config.logLevel,
    logsDir: config.paths.logs,
    name: "chat",
    stderrLevel: interactive ? undefined : "error",
    secrets: configSecrets(config),
  });
  const built = await createAgentFromConfig(config, { logger });
  if (!built.ok) {
    const { setting, message } = built.issue;
    io.errors.write(message.startsWith("No model") ? `${message}\n` : `Invalid configuration:\n- ${setting}: ${message}\n`);
    return 2;
  }
  const conversation = new Conversation(built.agent);
  const model = `${built.model.model.provider}/${built.model.model.id}`;

  if (interactive) {
    await runInteractiveChat(conversation, { input: io.input, output: io.output, banner: `Hermes — ${model} — workspace ${config.paths.workspace}` });
    return 0;
  }

  let stopped = false;
  const stop = (): void => {
    // npm forwards the signal too, so the same signal may arrive twice; stopping twice is harmless.
    stopped = true;
    conversation.interrupt();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    await runPipedChat(conversation, { input: io.input, output: io.output, logger, stopped: () => stopped });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  return stopped ? 130 : 0;
}
