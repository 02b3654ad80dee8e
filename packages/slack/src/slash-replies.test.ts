import { describe, expect, it } from "vitest";
import { slashCommandText } from "./slash-command.js";
import { PendingSlashReplies, RESPONSE_URL_LIFETIME_MS, responseUrlAllowed } from "./slash-replies.js";

describe("slash command replies", () => {
  it("posts only to Slack's hooks host over https, or to SLACK_API_URL's origin", () => {
    expect(responseUrlAllowed("https://hooks.slack.com/commands/T1/1/abc", undefined)).toBe(true);
    expect(responseUrlAllowed("http://hooks.slack.com/commands/T1/1/abc", undefined)).toBe(false);
    expect(responseUrlAllowed("https://hooks.slack.com.evil.test/commands/x", undefined)).toBe(false);
    expect(responseUrlAllowed("http://127.0.0.1:4000/hooks/commands/x", undefined)).toBe(false);
    expect(responseUrlAllowed("http://127.0.0.1:4000/hooks/commands/x", "http://127.0.0.1:4000")).toBe(true);
    expect(responseUrlAllowed("http://127.0.0.1:4001/hooks/commands/x", "http://127.0.0.1:4000")).toBe(false);
    expect(responseUrlAllowed("not a url", undefined)).toBe(false);
  });

  it("forgets a response_url once Slack would no longer take posts to it", () => {
    let now = 1_000;
    const pending = new PendingSlashReplies(() => now);
    pending.remember("t1", "https://hooks.slack.com/commands/1");
    expect(pending.urlFor("t1")).toBe("https://hooks.slack.com/commands/1");
    now += RESPONSE_URL_LIFETIME_MS;
    expect(pending.urlFor("t1")).toBeUndefined();
  });

  it("runs the text after /hermes as a chat command, and a bare /hermes as /help", () => {
    expect(slashCommandText("status")).toBe("/status");
    expect(slashCommandText("  model  gpt-x ")).toBe("/model  gpt-x");
    expect(slashCommandText("/new")).toBe("/new");
    expect(slashCommandText("")).toBe("/help");
  });
});
