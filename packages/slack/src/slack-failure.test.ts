import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { webApi } from "@slack/bolt";
import { silentLogger } from "@hermes/agent";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { boltLoggerFor } from "./bolt-logger.js";
import { webApiUrlFor } from "./slack-api-url.js";
import { connectionFailure, innermostMessage } from "./slack-failure.js";

let fake: FakeSlack;

beforeEach(async () => {
  fake = await startFakeSlack();
});

afterEach(async () => {
  await fake.close();
});

async function failureOf(token: string): Promise<unknown> {
  const client = new webApi.WebClient(token, { slackApiUrl: webApiUrlFor(fake.apiUrl), retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logger: boltLoggerFor(silentLogger) });
  try {
    await client.auth.test();
  } catch (error) {
    return error;
  }
  throw new Error("auth.test did not fail");
}

const AUTH_TEST = { method: "auth.test", token: "SLACK_BOT_TOKEN" } as const;

describe("connectionFailure", () => {
  it("names the refused token", async () => {
    expect(connectionFailure(await failureOf("xoxb-wrong"), AUTH_TEST)).toEqual({ cause: "Slack refused SLACK_BOT_TOKEN (invalid_auth)" });
  });

  it("names other refusals with the method", async () => {
    fake.failNext("auth.test", { error: "fatal_error" });
    expect(connectionFailure(await failureOf(fake.botToken), AUTH_TEST)).toEqual({ cause: "Slack answered auth.test with fatal_error" });
  });

  it("keeps Slack's Retry-After for a rate limit", async () => {
    fake.failNext("auth.test", { status: 429, retryAfterSeconds: 3 });
    expect(connectionFailure(await failureOf(fake.botToken), AUTH_TEST)).toEqual({ cause: "rate limited by Slack (auth.test)", retryAfterMs: 3_000 });
  });

  it("names an HTTP error and an unreachable Slack", async () => {
    fake.failNext("auth.test", { status: 502 });
    expect(connectionFailure(await failureOf(fake.botToken), AUTH_TEST)).toEqual({ cause: "Slack answered HTTP 502 to auth.test" });
    await fake.close();
    expect(connectionFailure(await failureOf(fake.botToken), AUTH_TEST).cause).toMatch(/^cannot reach Slack: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });
});

describe("innermostMessage", () => {
  it("takes the deepest cause, or its code when its message is empty", () => {
    expect(innermostMessage(new Error("fetch failed", { cause: new Error("getaddrinfo ENOTFOUND slack.example") }))).toBe("getaddrinfo ENOTFOUND slack.example");
    const aggregate = Object.assign(new AggregateError([], ""), { code: "ECONNREFUSED" });
    expect(innermostMessage(new Error("fetch failed", { cause: aggregate }))).toBe("ECONNREFUSED");
    expect(innermostMessage("plain")).toBe("plain");
  });
});
