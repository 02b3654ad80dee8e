import { runChat } from "./chat/run-chat.js";
import { runDoctor } from "./doctor/doctor-command.js";
import { hooksCommand, pairingCommand, sessionsCommand } from "./operator-commands.js";

const USAGE = `Usage: hermes <command>

Commands:
  chat                              talk to the bot in this terminal (one message per line when stdin is not a terminal)
  pairing approve <platform> <code> approve a user who asked for access (also: pairing list, pairing revoke)
  hooks list|enable|disable|install|test   manage lifecycle hooks
  sessions list|show                recent conversations and their transcripts
  doctor                            check the configuration, state database, model settings and Redis
  help                              show this text

Configuration comes from the environment, a .env file, or $HERMES_HOME/config.yaml (see README.md).`;

async function main(argv: readonly string[]): Promise<number> {
  const [command = "help", ...rest] = argv;
  const io = { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr };
  switch (command) {
    case "chat":
      return runChat({ env: process.env, cwd: process.cwd(), input: process.stdin, output: process.stdout, errors: process.stderr });
    case "pairing":
      return pairingCommand(rest, io);
    case "hooks":
      return hooksCommand(rest, io);
    case "sessions":
      return sessionsCommand(rest, io);
    case "doctor":
      return runDoctor(io);
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

// Exit explicitly once output is flushed: idle keep-alive connections to the provider must not hold the process open.
function exitWith(code: number): void {
  process.stdout.write("", () => process.exit(code));
}

main(process.argv.slice(2)).then(exitWith, (error: unknown) => {
  process.stderr.write(`hermes: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  exitWith(1);
});
