import { createMetricsRegistry, silentLogger } from "@hermes/agent";
import { openStore } from "@hermes/store";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PlatformHealth } from "./platform-health.js";
import { platformCheck, runReadinessChecks, storeCheck, unreadyWhileStopping } from "./readiness.js";

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe("runReadinessChecks", () => {
  it("is ready only when every check passes, naming each failing part", async () => {
    const ready = await runReadinessChecks({ a: async () => ({ ok: true, detail: "fine" }), b: async () => ({ ok: true, detail: "fine too" }) });
    expect(ready).toEqual({ status: "ready", checks: { a: { ok: true, detail: "fine" }, b: { ok: true, detail: "fine too" } } });

    const report = await runReadinessChecks(
      {
        good: async () => ({ ok: true, detail: "fine" }),
        down: async () => ({ ok: false, detail: "connect ECONNREFUSED" }),
        broken: async () => {
          throw new Error("bug in a check");
        },
        hanging: () => new Promise(() => undefined),
      },
      50,
    );
    expect(report).toEqual({
      status: "unready",
      checks: {
        good: { ok: true, detail: "fine" },
        down: { ok: false, detail: "connect ECONNREFUSED" },
        broken: { ok: false, detail: "bug in a check" },
        hanging: { ok: false, detail: "no answer within 50 ms" },
      },
    });
  });
});

describe("unreadyWhileStopping", () => {
  it("keeps the report while serving and turns it unready, naming the process, while stopping", async () => {
    const report = await runReadinessChecks({ store: async () => ({ ok: true, detail: "writable" }) });
    expect(unreadyWhileStopping(report, false)).toEqual({ status: "ready", checks: { store: { ok: true, detail: "writable" } } });
    expect(unreadyWhileStopping(report, true)).toEqual({
      status: "unready",
      checks: { store: { ok: true, detail: "writable" }, process: { ok: false, detail: "stopping" } },
    });
  });
});

describe("platformCheck", () => {
  it("passes while connected and otherwise says the state and the last error", async () => {
    const registry = createMetricsRegistry();
    const health = new PlatformHealth({ platforms: ["telegram"], logger: silentLogger, up: registry.gauge("up", "Up.", { labelNames: ["platform"] }) });
    const check = platformCheck(health, "telegram");
    expect(await check()).toEqual({ ok: false, detail: "connecting" });
    health.report("telegram", { state: "retrying", error: "401 Unauthorized" });
    expect(await check()).toEqual({ ok: false, detail: "retrying: 401 Unauthorized" });
    health.report("telegram", { state: "connected" });
    expect(await check()).toEqual({ ok: true, detail: "connected" });
    expect(await platformCheck(health, "slack")()).toEqual({ ok: false, detail: "not started" });
  });
});

describe("storeCheck", () => {
  it("passes on an open store and fails once it is closed", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "hermes-ready-"));
    folders.push(folder);
    const store = await openStore({ file: path.join(folder, "state.db") });
    const check = storeCheck(store);
    expect(await check()).toEqual({ ok: true, detail: "writable" });
    await store.close();
    expect(await check()).toEqual({ ok: false, detail: "not writable: the database is closed" });
  });
});
