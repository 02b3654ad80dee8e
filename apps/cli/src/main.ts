import { dispatch } from "./cli/dispatch.js";

// Until the command settles, this handle keeps the process alive. A wait whose only timer is unreferenced (a fetch
// bounded by AbortSignal.timeout that the peer never answers) would otherwise let Node exit 0 with nothing printed.
const untilSettled = setInterval(() => undefined, 2 ** 30);

// Exit explicitly once output is flushed: idle keep-alive connections to the provider must not hold the process open.
function exitWith(code: number): void {
  clearInterval(untilSettled);
  process.stdout.write("", () => process.exit(code));
}

dispatch(process.argv.slice(2), { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(exitWith, (error: unknown) => {
  process.stderr.write(`hermes: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
  exitWith(1);
});
