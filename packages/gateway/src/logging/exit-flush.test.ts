import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./test-fixtures/log-then-exit.ts", import.meta.url));

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-exit-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture, dir], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

it("the last lines before process.exit reach the log file and stderr", async () => {
  const { code, stderr } = await run();
  expect(code).toBe(0);
  const file = await readFile(path.join(dir, "gateway.log"), "utf8");
  for (const [name, written] of [["gateway.log", file], ["stderr", stderr]] as const) {
    expect(written.trimEnd().split("\n"), name).toHaveLength(201);
    expect(written.trimEnd().split("\n").at(-1), name).toContain('"msg":"gateway stopped"');
  }
}, 30_000);
