import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";
import { createSlackAdapter, markdownToMrkdwn } from "@hermes/slack";
import { startFakeSlack, type FakeSlack, type PostedMessage } from "./fakes/slack/fake-slack.js";
import { appMention, directMessage, eventCallback, postSlackEvent } from "./fakes/slack/slack-events.js";
import { approvalIdOf, decidedPrompt, secondRequest, SLOW_MACHINE, terminalCall, TERMINAL_TOOLS } from "./support/approval-script.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const SIGNING_SECRET = "e2e-approval-secret";

let h: GatewayHarness | undefined;
let fake: FakeSlack | undefined;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = fake = undefined;
});


interface World {
  fake: FakeSlack;
  h: GatewayHarness;
  /** Where Slack posts events and interactions in HTTP mode (undefined in Socket Mode). */
  base: string | undefined;
}

async function start(env: Record<string, string>, options: { socketMode?: boolean } = {}): Promise<World> {
  const slack = (fake = await startFakeSlack());
  slack.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
  slack.addUser({ id: "U_BOB", name: "bob", displayName: "Bob" });
  const transport: Record<string, string> = options.socketMode ? { SLACK_APP_TOKEN: slack.appToken } : { SLACK_SIGNING_SECRET: SIGNING_SECRET, HERMES_HTTP_PORT: "0" };
  const adapters = (config: GatewayConfig): PlatformAdapter[] => {
    if (!config.slack) throw new Error("the test configuration has no Slack settings");
    return [createSlackAdapter(config.slack, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "slack") })];
  };
  h = await startGatewayHarness({ SLACK_BOT_TOKEN: slack.botToken, SLACK_API_URL: slack.apiUrl, SLACK_ALLOWED_USERS: "U_ALICE,U_BOB", ...transport, ...env }, undefined, {
    adapters,
    http: !options.socketMode,
  });
  if (options.socketMode) await slack.socket.waitForConnection();
  const port = h.gateway.httpAddress?.port;
  return { fake: slack, h, base: port === undefined ? undefined : `http://127.0.0.1:${port}` };
}

/** Slack delivers an event: signed to /slack/events over HTTP, or as an events_api envelope over Socket Mode. */
async function deliver(world: World, event: Record<string, unknown>): Promise<void> {
  if (world.base === undefined) {
    await world.fake.socket.send(eventCallback(event));
    return;
  }
  const answer = await postSlackEvent(`${world.base}/slack/events`, eventCallback(event), { signingSecret: SIGNING_SECRET });
  expect(answer.status).toBe(200);
}

/** A person presses the button with `value` on the bot's message `ts`; Slack is answered 200 (HTTP) or the envelope acknowledged. */
async function press(world: World, ts: string, user: string, value: string): Promise<void> {
  const http = world.base === undefined ? undefined : { url: `${world.base}/slack/interactivity`, signingSecret: SIGNING_SECRET };
  const answer = await world.fake.pressButton({ ts, user, value, http });
  if (answer.via === "http") expect(answer).toEqual({ via: "http", status: 200, text: "" });
  else expect(world.fake.socket.acks).toContain(answer.envelopeId);
}

function buttonValues(message: PostedMessage | undefined): string[] {
  const blocks = (message?.blocks ?? []) as { type?: string; elements?: { value?: string }[] }[];
  return blocks.filter((block) => block.type === "actions").flatMap((block) => (block.elements ?? []).map((element) => element.value ?? ""));
}

/** What Slack shows of a message: with blocks, the sections' text (the top-level text is then only the fallback). */
function visibleText(message: PostedMessage | undefined): string | undefined {
  if (!message) return undefined;
  if (!message.blocks) return message.text;
  const blocks = message.blocks as { type?: string; text?: { text?: string } }[];
  return blocks.filter((block) => block.type === "section").map((block) => block.text?.text ?? "").join("\n");
}

async function waitForPosted(slack: FakeSlack, find: (message: PostedMessage) => boolean, what: string): Promise<PostedMessage> {
  let found: PostedMessage | undefined;
  await vi.waitFor(() => {
    found = slack.posted.find(find);
    if (!found) throw new Error(`timed out waiting for ${what}`);
  }, SLOW_MACHINE);
  if (!found) throw new Error(`timed out waiting for ${what}`);
  return found;
}

const PROMPT_START = markdownToMrkdwn("**Approve this `terminal` call?**");

function waitForPrompt(slack: FakeSlack): Promise<PostedMessage> {
  return waitForPosted(slack, (m) => m.text.startsWith(PROMPT_START) && buttonValues(m).length > 0, "the approval prompt");
}


describe("streaming and approval on Slack (Bolt against the stand-in)", () => {
  it("streams a slow answer into one message that chat.update edits until it shows the whole answer in mrkdwn", async () => {
    const world = await start({ HERMES_STREAMING: "edit" });
    const { fake, h } = world;
    const answer = "Here is the plan:\n- **Build** the image first\n- Then ship it to staging and watch the logs";
    const rendered = markdownToMrkdwn(answer);
    h.llm.enqueue({ kind: "text", text: answer, chunks: 8, delayMsBetweenChunks: 350 });
    await deliver(world, directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "what is the plan?" }));
    await waitForPosted(fake, (m) => m.channel === "D_ALICE" && visibleText(m) === rendered, "the streamed answer to be complete");
    await h.gateway.waitIdle("agent:main:slack:dm:D_ALICE");

    const sent = fake.posted.filter((m) => m.channel === "D_ALICE");
    expect(sent).toHaveLength(1);
    const [message] = sent;
    expect(rendered).toContain("*Build*");
    expect(visibleText(message)).toBe(rendered);
    expect(message?.text).toBe(rendered);
    expect(buttonValues(message)).toEqual([]);
    const edits = fake.edits.filter((edit) => edit.ts === message?.ts);
    expect(edits.length).toBeGreaterThanOrEqual(1);
    // The first text went out before the model finished: the message was posted shorter than the answer.
    const firstPost = fake.calls.find((call) => call.method === "chat.postMessage" && call.params.channel === "D_ALICE");
    expect(firstPost?.params.text).not.toBe(rendered);
    expect(fake.posted.filter((m) => m.text.includes("Build"))).toHaveLength(1);
  });

  it("runs the call once the asker presses Approve in the channel thread, and tells someone else the prompt is not theirs", async () => {
    const world = await start(TERMINAL_TOOLS);
    const { fake, h } = world;
    h.llm.enqueue(terminalCall("echo approved-e2e"), { kind: "text", text: "Done." });
    const mention = appMention({ channel: "C_GENERAL", user: "U_ALICE", text: `<@${fake.botUserId}> please run the echo` });
    await deliver(world, mention);
    const prompt = await waitForPrompt(fake);
    const id = approvalIdOf(buttonValues(prompt));
    expect(prompt).toMatchObject({ channel: "C_GENERAL", thread_ts: mention.ts });
    expect(buttonValues(prompt)).toEqual([`/approve ${id}`, `/approve ${id} always`, `/deny ${id}`]);

    await press(world, prompt.ts, "U_BOB", `/approve ${id}`);
    await waitForPosted(fake, (m) => m.text === "Only the person whose message started this can answer it.", "the notice to Bob");
    expect(h.llm.requests).toHaveLength(1);
    expect(fake.edits.filter((edit) => edit.ts === prompt.ts)).toEqual([]);

    await press(world, prompt.ts, "U_ALICE", `/approve ${id}`);
    const done = await waitForPosted(fake, (m) => m.text === "Done.", "the answer after the approved call");
    expect(done).toMatchObject({ channel: "C_GENERAL", thread_ts: mention.ts });
    expect(visibleText(prompt)).toBe(markdownToMrkdwn(decidedPrompt("echo approved-e2e", "Approved: the `terminal` call runs now.")));
    expect(buttonValues(prompt)).toEqual([]);
    expect(await secondRequest(h)).toContain("approved-e2e");
    expect(fake.posted.filter((m) => m.text.includes("Approved:"))).toEqual([prompt]);
  });

  it("does not run the call when the asker presses Deny (Socket Mode, in a DM)", async () => {
    const world = await start(TERMINAL_TOOLS, { socketMode: true });
    const { fake, h } = world;
    h.llm.enqueue(terminalCall("echo denied-e2e"), { kind: "text", text: "All right, I will not run it." });
    await deliver(world, directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "please run the echo" }));
    const prompt = await waitForPrompt(fake);
    const id = approvalIdOf(buttonValues(prompt));

    await press(world, prompt.ts, "U_ALICE", `/deny ${id}`);
    await vi.waitFor(() => expect(visibleText(prompt)).toBe(markdownToMrkdwn(decidedPrompt("echo denied-e2e", "Denied: the `terminal` call will not run."))), SLOW_MACHINE);
    expect(buttonValues(prompt)).toEqual([]);
    expect(await secondRequest(h)).toContain("denied this terminal call");
    await waitForPosted(fake, (m) => m.text === "All right, I will not run it.", "the answer after the denial");
    await h.gateway.waitIdle("agent:main:slack:dm:D_ALICE");
    // The press is answered by the edit alone: nothing else is posted besides the model's answer.
    expect(fake.posted.filter((m) => m.channel === "D_ALICE").map((m) => m.text)).toEqual([prompt.text, "All right, I will not run it."]);
  });

  it("counts no answer within the timeout as a denial, said in the chat", async () => {
    const world = await start({ ...TERMINAL_TOOLS, HERMES_APPROVAL_TIMEOUT_S: "1" });
    const { fake, h } = world;
    h.llm.enqueue(terminalCall("echo timed-out-e2e"), { kind: "text", text: "No answer, so I did not run it." });
    await deliver(world, directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "please run the echo" }));
    await waitForPrompt(fake);

    await waitForPosted(fake, (m) => m.channel === "D_ALICE" && m.text === "No answer within 1 second: the `terminal` call was not run.", "the timeout notice");
    expect(await secondRequest(h)).toContain("did not answer");
  });
});
