import { dispatch } from "./cli/dispatch.js";

// Exit explicitly once output is flushed: idle keep-alive connections to the provider must not hold the process open.
function exitWith(code: number): void {
  process.stdout.write("", () => process.exit(code));
}

dispatch(process.argv.slice(2), { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(exitWith, (error: unknown) => {
  process.stderr.write(`hermes: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  exitWith(1);
});
