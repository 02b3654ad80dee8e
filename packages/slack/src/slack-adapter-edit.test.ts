import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { OutboundButton } from "@hermes/gateway";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { SECTION_TEXT_LIMIT } from "./message-blocks.js";
import { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";

let fake: FakeSlack;
let dir: string;
let adapter: SlackAdapter | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

async function started(): Promise<SlackAdapter> {
  const created = createSlackAdapter({ botToken: fake.botToken, signingSecret: "s", apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: dir });
  await created.start({ receive: async () => {}, reportStatus: () => {}, route: () => {} });
  adapter = created;
  return created;
}

const APPROVAL_BUTTONS: OutboundButton[] = [
  { label: "Approve", value: "/approve k3j4h5m6", style: "primary" },
  { label: "Approve for this conversation", value: "/approve k3j4h5m6 always" },
  { label: "Deny", value: "/deny k3j4h5m6", style: "danger" },
];

const ACTIONS_BLOCK = {
  type: "actions",
  block_id: "hermes_buttons",
  elements: [
    { type: "button", action_id: "hermes_btn_0", text: { type: "plain_text", text: "Approve", emoji: true }, value: "/approve k3j4h5m6", style: "primary" },
    { type: "button", action_id: "hermes_btn_1", text: { type: "plain_text", text: "Approve for this conversation", emoji: true }, value: "/approve k3j4h5m6 always" },
    { type: "button", action_id: "hermes_btn_2", text: { type: "plain_text", text: "Deny", emoji: true }, value: "/deny k3j4h5m6", style: "danger" },
  ],
};

async function postedTs(slack: SlackAdapter, buttons?: OutboundButton[]): Promise<string> {
  const result = await slack.send({ chatId: "C1", threadId: "10.1" }, { text: "Run *terminal*: `rm -rf build`?", format: "markdown", buttons });
  if (!result.ok || !result.messageId) throw new Error("the message was not posted");
  return result.messageId;
}

describe("SlackAdapter buttons on send", () => {
  it("sends the mrkdwn text in a section with the buttons in an actions block, and the text as the notification fallback", async () => {
    const slack = await started();
    await postedTs(slack, APPROVAL_BUTTONS);
    expect(fake.posted[0]).toMatchObject({ channel: "C1", thread_ts: "10.1", text: "Run *terminal*: `rm -rf build`?", mrkdwn: true });
    expect(fake.posted[0]?.blocks).toEqual([{ type: "section", text: { type: "mrkdwn", text: "Run *terminal*: `rm -rf build`?" } }, ACTIONS_BLOCK]);
  });

  it("sends no blocks without buttons", async () => {
    const slack = await started();
    await postedTs(slack);
    expect(fake.posted[0]?.blocks).toBeUndefined();
  });

  it("puts a text longer than a section takes into several sections, all of it shown above the buttons", async () => {
    const slack = await started();
    const long = Array.from({ length: 200 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");
    expect(long.length).toBeGreaterThan(SECTION_TEXT_LIMIT);
    await slack.send({ chatId: "C1" }, { text: long, format: "markdown", buttons: APPROVAL_BUTTONS });
    const blocks = fake.posted[0]?.blocks as { type: string; text?: { text: string } }[];
    const sections = blocks.filter((block) => block.type === "section").map((block) => block.text?.text ?? "");
    expect(sections.length).toBe(2);
    expect(sections.every((text) => text.length <= SECTION_TEXT_LIMIT)).toBe(true);
    expect(sections.join("\n")).toBe(long);
    expect(blocks.at(-1)).toEqual(ACTIONS_BLOCK);
    expect(fake.posted[0]?.text).toBe(long);
  });

  it("shows plain text with buttons unformatted (a plain_text section), still escaped", async () => {
    const slack = await started();
    await slack.send({ chatId: "D1" }, { text: "*not bold* <!here>", format: "plain", buttons: [{ label: "Deny", value: "/deny a1b2c3d4", style: "danger" }] });
    expect(fake.posted[0]?.blocks?.[0]).toEqual({ type: "section", text: { type: "plain_text", text: "*not bold* &lt;!here&gt;", emoji: true } });
  });
});

describe("SlackAdapter.edit", () => {
  it("edits the message with chat.update: new text, exactly the given buttons, and none when none are given", async () => {
    const slack = await started();
    const ts = await postedTs(slack, APPROVAL_BUTTONS);
    expect(await slack.edit({ chatId: "C1", threadId: "10.1" }, ts, { text: "Run *terminal*?\n✅ Approved", format: "markdown", buttons: APPROVAL_BUTTONS.slice(2) })).toEqual({ ok: true, messageId: ts });
    expect(fake.posted[0]?.blocks).toEqual([
      { type: "section", text: { type: "mrkdwn", text: "Run *terminal*?\n✅ Approved" } },
      { ...ACTIONS_BLOCK, elements: [{ ...ACTIONS_BLOCK.elements[2], action_id: "hermes_btn_0" }] },
    ]);
    expect(await slack.edit({ chatId: "C1" }, ts, { text: "Run *terminal*?\n✅ Approved by <@U1>", format: "markdown" })).toEqual({ ok: true, messageId: ts });
    expect(fake.posted[0]).toMatchObject({ text: "Run *terminal*?\n✅ Approved by <@U1>", blocks: [{ type: "section", text: { type: "mrkdwn", text: "Run *terminal*?\n✅ Approved by <@U1>" } }] });
    expect(fake.edits.map((edit) => [edit.ts, edit.text])).toEqual([
      [ts, "Run *terminal*?\n✅ Approved"],
      [ts, "Run *terminal*?\n✅ Approved by <@U1>"],
    ]);
  });

  it("takes an edit to the text the message already has as a success", async () => {
    const slack = await started();
    const ts = await postedTs(slack);
    const same = { text: "Run *terminal*: `rm -rf build`?", format: "markdown" as const };
    expect(await slack.edit({ chatId: "C1" }, ts, same)).toEqual({ ok: true, messageId: ts });
    expect(await slack.edit({ chatId: "C1" }, ts, same)).toEqual({ ok: true, messageId: ts });
    expect(fake.edits.length).toBe(2);
  });

  it("shows a plain edit unformatted and escaped (chat.update has no mrkdwn switch)", async () => {
    const slack = await started();
    const ts = await postedTs(slack);
    await slack.edit({ chatId: "C1" }, ts, { text: "partial **answ <b>", format: "plain" });
    expect(fake.posted[0]).toMatchObject({ text: "partial **answ &lt;b&gt;", blocks: [{ type: "section", text: { type: "plain_text", text: "partial **answ &lt;b&gt;", emoji: true } }] });
  });

  it("reports a message Slack does not know or will not update as final, and rate limits with Retry-After", async () => {
    const slack = await started();
    const ts = await postedTs(slack);
    const text = { text: "new", format: "markdown" as const };
    expect(await slack.edit({ chatId: "C1" }, "1.000001", text)).toEqual({ ok: false, retryable: false, error: "Slack refused the message: message_not_found" });
    fake.failNext("chat.update", { error: "cant_update_message" });
    expect(await slack.edit({ chatId: "C1" }, ts, text)).toEqual({ ok: false, retryable: false, error: "Slack refused the message: cant_update_message" });
    fake.failNext("chat.update", { status: 429, retryAfterSeconds: 3 });
    expect(await slack.edit({ chatId: "C1" }, ts, text)).toEqual({ ok: false, retryable: true, error: "rate limited by Slack", retryAfterMs: 3000 });
    expect(fake.posted[0]?.text).toBe("Run *terminal*: `rm -rf build`?");
    await fake.close();
    expect(await slack.edit({ chatId: "C1" }, ts, text)).toMatchObject({ ok: false, retryable: true, error: expect.stringContaining("could not reach Slack") });
  });
});
