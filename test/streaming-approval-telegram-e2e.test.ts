import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createTelegramAdapter, markdownToTelegramHtml } from "@hermes/telegram";
import { groupChat, parseTelegramHtml, startFakeTelegram, type FakeTelegram, type FakeUser, type SentMessage, type UserMessageOptions } from "./fakes/telegram/index.js";
import { approvalIdOf, decidedPrompt, secondRequest, SLOW_MACHINE, terminalCall, TERMINAL_TOOLS } from "./support/approval-script.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const TOKEN = "123456:TEST-token";
const DM_KEY = "agent:main:telegram:dm:7";
const BOB: FakeUser = { id: 99, first_name: "Bob", username: "bob" };
const TEAM = groupChat(-100, "Team");

let fake: FakeTelegram | undefined;
let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = fake = undefined;
});


async function start(env: Record<string, string>): Promise<{ fake: FakeTelegram; h: GatewayHarness }> {
  const telegram = (fake = await startFakeTelegram({ token: TOKEN }));
  const adapters = (config: GatewayConfig) => {
    if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
    return [createTelegramAdapter(config.telegram, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "telegram") })];
  };
  h = await startGatewayHarness({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "telegram:7,telegram:99", ...env }, undefined, { adapters });
  return { fake: telegram, h };
}

/** A user writes; resolves once the adapter confirmed the update, which it does only after the gateway persisted it. */
async function say(telegram: FakeTelegram, options: UserMessageOptions): Promise<void> {
  const { update } = telegram.userWrites(options);
  await telegram.waitForConfirmation(update);
}

/** A user presses a button under the bot's message; resolves once the gateway has the press and Telegram its answer. */
async function press(telegram: FakeTelegram, message: SentMessage, value: string, presser?: FakeUser): Promise<void> {
  const { update, callbackQueryId } = telegram.pressButton(message, value, presser);
  await telegram.waitForConfirmation(update);
  await telegram.waitForCall("answerCallbackQuery", (call) => call.params.callback_query_id === callbackQueryId && call.outcome === "ok");
}

function buttonValues(message: SentMessage | undefined): string[] {
  return (message?.replyMarkup?.inline_keyboard ?? []).flat().map((button) => ("callback_data" in button ? (button.callback_data ?? "") : ""));
}

/** What the chat shows of Markdown the gateway formats: Telegram HTML, parsed. */
function shownAs(markdown: string): string {
  const parsed = parseTelegramHtml(markdownToTelegramHtml(markdown));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.text;
}

async function waitForSent(telegram: FakeTelegram, find: (message: SentMessage) => boolean, what: string): Promise<SentMessage> {
  let found: SentMessage | undefined;
  await vi.waitFor(() => {
    found = telegram.sent.find(find);
    if (!found) throw new Error(`timed out waiting for ${what}`);
  }, SLOW_MACHINE);
  if (!found) throw new Error(`timed out waiting for ${what}`);
  return found;
}

const PROMPT_START = shownAs("**Approve this `terminal` call?**");

function waitForPrompt(telegram: FakeTelegram): Promise<SentMessage> {
  return waitForSent(telegram, (m) => m.versions[0]?.visible.startsWith(PROMPT_START) === true && m.versions[0].replyMarkup !== undefined, "the approval prompt");
}


describe("streaming and approval on Telegram (grammY against the stand-in)", () => {
  it("streams a slow answer into one message that editMessageText brings to the whole answer in HTML", async () => {
    const { fake, h } = await start({ HERMES_STREAMING: "edit" });
    const answer = "Here is the plan:\n- **Build** the image first\n- Then ship it to staging and watch the logs";
    const html = markdownToTelegramHtml(answer);
    h.llm.enqueue({ kind: "text", text: answer, chunks: 8, delayMsBetweenChunks: 350 });
    await say(fake, { text: "what is the plan?" });
    await waitForSent(fake, (m) => m.chatId === "7" && m.text === html, "the streamed answer to be complete");
    await h.gateway.waitIdle(DM_KEY);

    const sent = fake.sentTo(7);
    expect(sent).toHaveLength(1);
    const [message] = sent;
    expect(html).toContain("<b>Build</b>");
    expect(message).toMatchObject({ text: html, visible: shownAs(answer), parseMode: "HTML", replyMarkup: undefined });
    expect(message?.versions.length).toBeGreaterThanOrEqual(2);
    // The first text went out before the model finished: the message was sent shorter than the answer.
    expect(message?.versions[0]?.visible).not.toBe(shownAs(answer));
    expect(fake.sent.filter((m) => m.versions.some((version) => version.visible.includes("Build")))).toHaveLength(1);
  });

  it("runs the call once the asker presses Approve in a group, and tells someone else the prompt is not theirs", async () => {
    const { fake, h } = await start(TERMINAL_TOOLS);
    h.llm.enqueue(terminalCall("echo approved-e2e"), { kind: "text", text: "Done." });
    await say(fake, { chat: TEAM, text: "@hermes_test_bot please run the echo" });
    const prompt = await waitForPrompt(fake);
    const id = approvalIdOf(buttonValues(prompt));
    expect(prompt.chatId).toBe("-100");
    expect(buttonValues(prompt)).toEqual([`/approve ${id}`, `/approve ${id} always`, `/deny ${id}`]);

    await press(fake, prompt, `/approve ${id}`, BOB);
    await waitForSent(fake, (m) => m.visible === "Only the person whose message started this can answer it.", "the notice to Bob");
    expect(h.llm.requests).toHaveLength(1);
    expect(prompt.versions).toHaveLength(1);

    await press(fake, prompt, `/approve ${id}`);
    const done = await waitForSent(fake, (m) => m.visible === "Done.", "the answer after the approved call");
    expect(done.chatId).toBe("-100");
    expect(prompt).toMatchObject({ text: markdownToTelegramHtml(decidedPrompt("echo approved-e2e", "Approved: the `terminal` call runs now.")), parseMode: "HTML", replyMarkup: undefined });
    expect(await secondRequest(h)).toContain("approved-e2e");
    expect(fake.sent.filter((m) => m.visible.includes("Approved:"))).toEqual([prompt]);
    expect(fake.callbackAnswers).toHaveLength(2);
  });

  it("does not run the call when the asker presses Deny", async () => {
    const { fake, h } = await start(TERMINAL_TOOLS);
    h.llm.enqueue(terminalCall("echo denied-e2e"), { kind: "text", text: "All right, I will not run it." });
    await say(fake, { text: "please run the echo" });
    const prompt = await waitForPrompt(fake);

    await press(fake, prompt, `/deny ${approvalIdOf(buttonValues(prompt))}`);
    await vi.waitFor(() => expect(prompt.visible).toBe(shownAs(decidedPrompt("echo denied-e2e", "Denied: the `terminal` call will not run."))), SLOW_MACHINE);
    expect(prompt.replyMarkup).toBeUndefined();
    expect(await secondRequest(h)).toContain("denied this terminal call");
    await waitForSent(fake, (m) => m.visible === "All right, I will not run it.", "the answer after the denial");
    await h.gateway.waitIdle(DM_KEY);
    // The press is answered by the edit alone: nothing else is sent besides the model's answer.
    expect(fake.sentTo(7).map((m) => m.visible)).toEqual([prompt.visible, "All right, I will not run it."]);
  });

  it("counts no answer within the timeout as a denial, said in the chat", async () => {
    const { fake, h } = await start({ ...TERMINAL_TOOLS, HERMES_APPROVAL_TIMEOUT_S: "1" });
    h.llm.enqueue(terminalCall("echo timed-out-e2e"), { kind: "text", text: "No answer, so I did not run it." });
    await say(fake, { text: "please run the echo" });
    await waitForPrompt(fake);

    const notice = shownAs("No answer within 1 second: the `terminal` call was not run.");
    await waitForSent(fake, (m) => m.chatId === "7" && m.visible === notice, "the timeout notice");
    expect(await secondRequest(h)).toContain("did not answer");
  });
});
