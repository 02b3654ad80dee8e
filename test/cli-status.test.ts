import http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer } from "./fakes/llm-server.js";
import { startFakeTelegram } from "./fakes/telegram/index.js";
import { httpUrl, startApp } from "./support/app-process.js";
import { runCli } from "./support/run-cli.js";
import { waitUntil } from "./support/wait-until.js";
import { closedPort, freePort } from "./support/free-port.js";

let root = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-status-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A stand-in gateway that answers /readyz with `status` and `body`. */
async function readyzStandIn(status: number, body: unknown): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.writeHead(req.url === "/readyz" ? status : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const env = (port: number): Record<string, string> => ({ HOME: root, HERMES_HOME: path.join(root, "state"), HERMES_HTTP_PORT: String(port) });

describe("hermes status", () => {
  it("shows a ready gateway's checks and platforms, and passes the body through with --json", async () => {
    const body = {
      status: "ready",
      checks: { store: { ok: true, detail: "writable" }, telegram: { ok: true, detail: "connected" } },
      platforms: { telegram: { state: "connected", lastError: null, since: Date.UTC(2026, 0, 2, 3, 4, 5) } },
    };
    const standIn = await readyzStandIn(200, body);
    try {
      const text = await runCli(["status"], { env: env(standIn.port), cwd: root });
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`Gateway at http://127.0.0.1:${standIn.port}: ready`);
      expect(text.stdout).toMatch(/ok\s+store\s+writable/);
      expect(text.stdout).toMatch(/telegram\s+connected\s+since 2026-01-02 03:04:05 UTC/);
      const json = await runCli(["status", "--json"], { env: env(standIn.port), cwd: root });
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual(body);
    } finally {
      await standIn.close();
    }
  });

  it("exits 1 for an unready gateway, naming what is down", async () => {
    const body = {
      status: "unready",
      checks: { telegram: { ok: false, detail: "retrying: 401 Unauthorized" } },
      platforms: { telegram: { state: "retrying", lastError: "401 Unauthorized", since: 0 } },
    };
    const standIn = await readyzStandIn(503, body);
    try {
      const run = await runCli(["status"], { env: env(standIn.port), cwd: root });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/FAIL\s+telegram\s+retrying: 401 Unauthorized/);
      expect(run.stdout).toMatch(/telegram\s+retrying .*last error: 401 Unauthorized/);
    } finally {
      await standIn.close();
    }
  });

  it("exits 1 with a clear message when no gateway answers", async () => {
    const port = await closedPort();
    const run = await runCli(["status"], { env: env(port), cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`no gateway is answering on http://127.0.0.1:${port} (connect ECONNREFUSED 127.0.0.1:${port})`);
  });

  it("reads a running compiled gateway's /readyz; doctor then warns that the port is held", async () => {
    const [llm, telegram] = await Promise.all([startLlmServer({ defaultReply: { kind: "text", text: "OK" } }), startFakeTelegram()]);
    const port = await freePort();
    const gatewayEnv = { ...env(port), HERMES_BASE_URL: llm.baseUrl, HERMES_MODEL: "scripted-model", TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot };
    const gateway = startApp("gateway", gatewayEnv);
    try {
      await gateway.waitFor("gateway started");
      // Ready once Telegram is connected; asked over HTTP meanwhile, since every `hermes status` is a process start.
      const readyz = `${httpUrl(gateway)}/readyz`;
      const readyStatus = async (): Promise<number> => {
        const response = await fetch(readyz).catch(() => undefined);
        await response?.body?.cancel();
        return response?.status ?? 0;
      };
      await waitUntil(async () => (await readyStatus()) === 200, "the gateway to be ready");
      const status = await runCli(["status", "--json"], { env: env(port), cwd: root });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ status: "ready", platforms: { telegram: { state: "connected" } } });
      const doctor = await runCli(["doctor", "--json"], { env: gatewayEnv, cwd: root });
      const report = JSON.parse(doctor.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
      expect(report.checks.find((check) => check.name === "http")?.status).toBe("warn");
    } finally {
      gateway.kill("SIGTERM");
      await gateway.exited;
      await Promise.all([llm.close(), telegram.close()]);
    }
  });
});
