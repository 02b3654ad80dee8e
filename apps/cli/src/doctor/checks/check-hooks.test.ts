import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, loadConfig } from "@hermes/gateway";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DoctorContext } from "../doctor-check.js";
import { checkHooks } from "./check-hooks.js";

let root = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-check-hooks-"));
  await mkdir(path.join(root, "bundled"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function contextWith(timeoutMs: number): Promise<DoctorContext> {
  const loaded = await loadConfig({ env: { HERMES_HOME: path.join(root, "home") }, cwd: root, homeDir: root, knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
  if (!loaded.ok) throw new Error(`test configuration is invalid: ${JSON.stringify(loaded.errors)}`);
  const fetch = (): Promise<Response> => Promise.reject(new Error("the hooks check makes no requests"));
  return { config: loaded.config, probe: { fetch, timeoutMs }, bundledHooksDir: path.join(root, "bundled") };
}

async function writeOperatorHook(context: DoctorContext, name: string, handler: string): Promise<void> {
  const folder = path.join(context.config.paths.hooks, name);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, "HOOK.yaml"), `name: ${name}\ndescription: the ${name} hook\nevents: [message:received]\n`);
  await writeFile(path.join(folder, "handler.mjs"), handler);
}

describe("doctor's hooks check", () => {
  it("warns, naming the hooks folder, when a handler's top-level code never finishes", async () => {
    const context = await contextWith(50);
    await writeOperatorHook(context, "stuck", "await new Promise(() => {});\nexport default async () => undefined;\n");
    expect(await checkHooks(context)).toEqual({
      status: "warn",
      detail: `hooks did not finish loading within 0.05 s (from ${context.config.paths.hooks}): a handler's top-level code may never finish; disable that hook with npm run hermes -- hooks disable <name>`,
    });
  });

  it("summarises the hooks that load within the timeout", async () => {
    const context = await contextWith(5_000);
    await writeOperatorHook(context, "greeter", "export default async () => undefined;\n");
    expect(await checkHooks(context)).toEqual({ status: "ok", detail: "1 of 1 enabled (greeter)" });
  });
});
