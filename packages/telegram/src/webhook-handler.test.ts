import { describe, expect, it } from "vitest";
import type { HttpRequestInfo } from "@hermes/gateway";
import type { Update } from "grammy/types";
import { recordingLogger } from "./recording-logger.js";
import { createWebhookHandler, SECRET_HEADER, webhookRoutePath } from "./webhook-handler.js";

const update = { update_id: 9, message: { message_id: 1, date: 1, chat: { id: 7, type: "private", first_name: "Ada" }, text: "hi" } };

function request(body: unknown, secret?: string): HttpRequestInfo {
  const headers: Record<string, string> = secret === undefined ? {} : { [SECRET_HEADER]: secret };
  return { headers, rawBody: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)) };
}

describe("createWebhookHandler", () => {
  it("refuses requests without the secret token (401) or with a wrong one (403)", async () => {
    const handled: Update[] = [];
    const handler = createWebhookHandler({ secret: "s3cret", handler: () => async (u) => void handled.push(u), logger: recordingLogger() });
    expect((await handler(request(update))).status).toBe(401);
    expect((await handler(request(update, "s3cret-but-longer"))).status).toBe(403);
    expect((await handler(request(update, "S3CRET"))).status).toBe(403);
    expect(handled).toEqual([]);
  });

  it("answers 200 once the update is handed over, and errors Telegram retries otherwise", async () => {
    const handled: Update[] = [];
    let ready = false;
    let fail = false;
    const handler = createWebhookHandler({
      secret: "s3cret",
      handler: () =>
        ready
          ? async (u) => {
              if (fail) throw new Error("store is down");
              handled.push(u);
            }
          : undefined,
      logger: recordingLogger(),
    });
    expect((await handler(request(update, "s3cret"))).status).toBe(503);
    ready = true;
    expect((await handler(request("not json", "s3cret"))).status).toBe(400);
    expect((await handler(request({ message: {} }, "s3cret"))).status).toBe(400);
    fail = true;
    expect((await handler(request(update, "s3cret"))).status).toBe(500);
    fail = false;
    expect((await handler(request(update, "s3cret"))).status).toBe(200);
    expect(handled).toEqual([update]);
  });

  it("routes the webhook URL's path", () => {
    expect(webhookRoutePath("https://bot.example.org/hooks/telegram?x=1")).toBe("/hooks/telegram");
    expect(webhookRoutePath("https://bot.example.org")).toBe("/");
  });
});
