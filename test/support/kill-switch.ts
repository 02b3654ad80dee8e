import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** What the kill-switch hook reports from inside a worker: the event, its session (and message, on agent:start), the pid. */
export interface WorkerMoment {
  type: string;
  /** -1 on agent:end, which names only the session (a session runs one message at a time). */
  inboundId: number;
  sessionKey: string;
  pid: number;
}

export interface KillSwitch {
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback endpoint that a worker's hook calls at a moment of a run (agent:start: before the model call;
 * agent:end: the run's result is stored, the job not yet acknowledged). `onMoment` may kill the worker there; the hook
 * waits for the answer, so the worker is held at exactly that point until then.
 */
export async function startKillSwitch(onMoment: (moment: WorkerMoment) => Promise<void>): Promise<KillSwitch> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const moment = JSON.parse(body) as WorkerMoment;
      onMoment(moment).then(
        () => res.end("go on"),
        (error: unknown) => {
          res.statusCode = 500;
          res.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/moment`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Installs the operator hook that calls KILL_SWITCH_URL (from the worker's environment) on agent:start and agent:end. */
export async function installKillSwitchHook(hooksDir: string): Promise<void> {
  const folder = path.join(hooksDir, "kill-switch");
  await mkdir(folder, { recursive: true });
  await writeFile(
    path.join(folder, "HOOK.yaml"),
    'name: kill-switch\ndescription: lets a crash test stop a worker at a chosen moment\nevents:\n  - "agent:start"\n  - "agent:end"\ntimeout_ms: 20000\n',
  );
  await writeFile(
    path.join(folder, "handler.mjs"),
    `export default async (event) => {
  const url = process.env.KILL_SWITCH_URL;
  if (!url) return;
  await fetch(url, { method: "POST", body: JSON.stringify({ type: event.type, inboundId: event.inboundId ?? -1, sessionKey: event.sessionKey, pid: process.pid }) });
};
`,
  );
}
