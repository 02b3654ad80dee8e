import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { storeFixtures } from "./test-fixtures.js";

const fixtures = storeFixtures();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
  await fixtures.cleanup();
});

const WRITER = fileURLToPath(new URL("./concurrent-writer.fixture.ts", import.meta.url));
const ROUNDS = 150;

interface WriterSummary {
  sessionsCreated: number;
  inboundCreated: number;
  runsCompleted: number;
}

function startWriter(file: string, name: string) {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, file, name, String(ROUNDS)], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", () => {
      if (stdout.startsWith("ready\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`${name} exited ${code} before it was ready: ${stderr}`)));
  });
  const done = new Promise<WriterSummary>((resolve, reject) => {
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`${name} exited ${code}: ${stderr}`));
      const last = stdout.trim().split("\n").at(-1) ?? "";
      resolve(JSON.parse(last) as WriterSummary);
    });
  });
  return { go: () => child.stdin?.end("go\n"), ready, done };
}

describe("two processes on one file", () => {
  it("migrate a new file together and finish every run exactly once", async () => {
    const folder = await fixtures.folder();
    const file = path.join(folder, "state.db");
    const writers = [startWriter(file, "gateway"), startWriter(file, "worker")];
    await Promise.all(writers.map((writer) => writer.ready));
    for (const writer of writers) writer.go();
    const summaries = await Promise.all(writers.map((writer) => writer.done));

    const total = (field: keyof WriterSummary) => summaries.reduce((sum, summary) => sum + summary[field], 0);
    expect(total("sessionsCreated")).toBe(5);
    expect(total("inboundCreated")).toBe(ROUNDS);
    expect(total("runsCompleted")).toBe(ROUNDS);

    const store = await fixtures.open(file);
    expect(await store.deliveries.pending(10 * ROUNDS)).toHaveLength(ROUNDS);
    let messages = 0;
    for (let user = 0; user < 5; user++) {
      const sessions = await store.sessions.listForUser("telegram", `u${user}`);
      expect(sessions).toHaveLength(1);
      const listed = await store.messages.list(sessions[0]?.id ?? "");
      expect(listed.map((entry) => entry.seq)).toEqual(listed.map((_, index) => index));
      messages += listed.length;
    }
    expect(messages).toBe(2 * ROUNDS);
  });
});
