import { afterEach, describe, expect, it, vi } from "vitest";
import { createTelegramAdapter } from "@hermes/telegram";
import { startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { setDatabaseReachable } from "./support/database-outage.js";
import { recordingLogger } from "./support/recording-logger.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";

// The deployment's PostgreSQL goes away while the gateway runs (every connection cut, new ones refused) and comes back.

const TOKEN = "123456:TEST-token";
const DM_KEY = "agent:main:telegram:dm:7";

let fake: FakeTelegram | undefined;
let harness: GatewayHarness | undefined;
let database: TestDatabase | undefined;

afterEach(async () => {
  await harness?.close();
  await fake?.close();
  await database?.drop();
  harness = undefined;
  fake = undefined;
  database = undefined;
});

async function storeUp(h: GatewayHarness): Promise<string | undefined> {
  const response = await fetch(`http://127.0.0.1:${h.gateway.httpAddress?.port ?? 0}/metrics`);
  return /^hermes_store_up (\d)$/m.exec(await response.text())?.[1];
}

async function readiness(h: GatewayHarness): Promise<{ status: number; store: { ok: boolean; detail: string } | undefined }> {
  const address = h.gateway.httpAddress;
  if (!address) throw new Error("the gateway serves no HTTP");
  const response = await fetch(`http://127.0.0.1:${address.port}/readyz`);
  const body = (await response.json()) as { checks: { store?: { ok: boolean; detail: string } } };
  return { status: response.status, store: body.checks.store };
}

describe("PostgreSQL going away under a running gateway (HERMES_DATABASE_URL)", () => {
  it("reports the store unready while it is away, keeps the messages written meanwhile and answers each once it is back", async () => {
    database = await createTestDatabase();
    const logger = recordingLogger();
    const telegram = await startFakeTelegram({ token: TOKEN });
    fake = telegram;
    const h = await startGatewayHarness(
      { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "telegram:7", HERMES_HTTP_PORT: "0", HERMES_DATABASE_URL: database.url },
      undefined,
      {
        adapters: (config) => {
          if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
          return [createTelegramAdapter(config.telegram, { logger: logger.child({ platform: "telegram" }), attachmentsDir: `${config.paths.workspace}/attachments` })];
        },
        http: true,
        logger,
      },
    );
    harness = h;
    h.llm.enqueue({ kind: "text", text: "Before the outage." });
    const first = telegram.userWrites({ text: "hello" });
    await telegram.waitForConfirmation(first.update);
    await h.gateway.waitIdle(DM_KEY);
    expect((await readiness(h)).status).toBe(200);
    expect(await storeUp(h)).toBe("1");

    await setDatabaseReachable(database.url, false);
    await vi.waitFor(async () => expect(await readiness(h)).toMatchObject({ status: 503, store: { ok: false } }), { timeout: 15_000, interval: 200 });
    expect(await storeUp(h)).toBe("0");
    h.llm.enqueue({ kind: "text", text: "Answer one." }, { kind: "text", text: "Answer two." });
    const during = [telegram.userWrites({ text: "are you there?" }), telegram.userWrites({ text: "still there?" })];
    // Nothing can be kept while the database is away: the operator is told why, and Telegram is not told the updates
    // arrived, so it hands them over again.
    await vi.waitFor(
      () =>
        expect(logger.entries).toContainEqual(
          expect.objectContaining({ level: "error", message: "could not hand a Telegram update to the gateway; it will be fetched again", fields: expect.objectContaining({ error: expect.stringContaining("not currently accepting connections") }) }),
        ),
      { timeout: 15_000, interval: 100 },
    );
    expect(telegram.confirmedOffset()).toBeLessThanOrEqual(during[0]?.update.update_id ?? 0);

    await setDatabaseReachable(database.url, true);
    for (const written of during) await telegram.waitForConfirmation(written.update);
    await vi.waitFor(async () => expect((await readiness(h)).status).toBe(200), { timeout: 15_000, interval: 200 });
    expect(await storeUp(h)).toBe("1");
    await vi.waitFor(() => expect(telegram.sentTo(7).length).toBeGreaterThanOrEqual(3), { timeout: 30_000, interval: 100 });
    await h.gateway.waitIdle(DM_KEY);

    const replies = telegram.sentTo(7).map((sent) => sent.visible);
    expect(replies.filter((text) => text === "Before the outage.")).toHaveLength(1);
    // Each message written during the outage is answered exactly once (one run may take both, as a person's burst).
    expect(replies.filter((text) => text === "Answer one.")).toHaveLength(1);
    expect(h.llm.requests.length).toBeLessThanOrEqual(3);
    const userTurns = h.llm.requests.flatMap((request) => JSON.stringify(request.messages));
    expect(userTurns.join("\n")).toContain("are you there?");
    expect(userTurns.join("\n")).toContain("still there?");
  });
});
