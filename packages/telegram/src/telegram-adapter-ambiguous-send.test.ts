import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { Api } from "grammy";
import { startLossyProxy, type LossyProxy } from "../../../test/fakes/lossy-proxy.js";
import { startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { describeApiFailure } from "./api-errors.js";
import { failedSend } from "./send-result.js";
import { createTelegramAdapter } from "./telegram-adapter.js";

let fake: FakeTelegram;
let proxy: LossyProxy;
let dir: string;

beforeEach(async () => {
  fake = await startFakeTelegram();
  proxy = await startLossyProxy(fake.apiRoot);
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await proxy.close();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

const adapterAt = (apiRoot: string) => createTelegramAdapter({ token: fake.token, apiRoot }, { logger: silentLogger, attachmentsDir: dir });

/** A loopback port nothing listens on: the connection is refused before any request leaves. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("TelegramAdapter: sends whose outcome is unknown", () => {
  it("flags a send whose answer was lost as ambiguous; the resend shows the part twice (at least once)", async () => {
    fake.userWrites({ text: "hi" });
    const adapter = adapterAt(proxy.url);
    expect(adapter.deliveryGuarantee).toBe("at-least-once");
    proxy.loseNextAnswer(/\/sendMessage$/, { kind: "drop" });

    const lost = await adapter.send({ chatId: "7" }, { text: "Part one.", format: "plain", idempotencyKey: "d1p0" });
    expect(lost).toMatchObject({ ok: false, retryable: true, ambiguous: true });
    expect(fake.sentTo(7).map((message) => message.text)).toEqual(["Part one."]);

    expect(await adapter.send({ chatId: "7" }, { text: "Part one.", format: "plain", idempotencyKey: "d1p0" })).toMatchObject({ ok: true });
    expect(fake.sentTo(7).map((message) => message.text)).toEqual(["Part one.", "Part one."]);
  });

  it("flags a send that timed out waiting for Telegram's answer as ambiguous", async () => {
    fake.userWrites({ text: "hi" });
    // grammY's own client timeout, as the adapter's client has (there 60 s).
    const api = new Api(fake.token, { apiRoot: proxy.url, timeoutSeconds: 1 });
    proxy.loseNextAnswer(/\/sendMessage$/, { kind: "late", delayMs: 60_000 });
    const timedOut = await api.sendMessage(7, "Part one.").then(
      () => undefined,
      (error: unknown) => failedSend(describeApiFailure(error)),
    );
    expect(timedOut).toMatchObject({ ok: false, retryable: true, ambiguous: true });
    expect(fake.sentTo(7).map((message) => message.text)).toEqual(["Part one."]);
  });

  it("does not flag a send refused before it left: the connection was never made", async () => {
    const adapter = adapterAt(`http://127.0.0.1:${await closedPort()}`);
    const refused = await adapter.send({ chatId: "7" }, { text: "hi", format: "plain" });
    expect(refused).toMatchObject({ ok: false, retryable: true });
    expect(refused).not.toHaveProperty("ambiguous");
  });
});
