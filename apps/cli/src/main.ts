import { runChat } from "./chat/run-chat.js";

const USAGE = `Usage: hermes <command>

Commands:
  chat     talk to the agent in this terminal (reads one message per line when stdin is not a terminal)
  help     show this text

Configuration comes from the environment, a .env file, or $HERMES_HOME/config.yaml (see README.md).`;

async function main(argv: readonly string[]): Promise<number> {
  const [command = "help"] = argv;
  switch (command) {
    case "chat":
      return runChat({ env: process.env, cwd: process.cwd(), input: process.stdin, output: process.stdout, errors: process.stderr });
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
