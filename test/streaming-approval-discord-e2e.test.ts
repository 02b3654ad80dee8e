import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";
import { createDiscordAdapter } from "@hermes/discord";
import { startDiscordFake, type DiscordFake, type FakeUser, type SentMessage } from "./fakes/discord/index.js";
import { approvalIdOf, secondRequest, terminalCall, TERMINAL_TOOLS } from "./support/approval-script.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

let h: GatewayHarness | undefined;
let fake: DiscordFake | undefined;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = fake = undefined;
});


interface World {
  fake: DiscordFake;
  h: GatewayHarness;
  general: string;
  ada: FakeUser;
  bob: FakeUser;
}

async function start(env: Record<string, string>): Promise<World> {
  const discord = (fake = await startDiscordFake());
  const guild = discord.addGuild({ name: "Hermes Lab", channels: ["general"], botRoles: ["Hermes"] });
  const ada = discord.addUser("ada", { globalName: "Ada" });
  const bob = discord.addUser("bob", { globalName: "Bob" });
  const adapters = (config: GatewayConfig): PlatformAdapter[] => {
    if (!config.discord) throw new Error("DISCORD_BOT_TOKEN did not enable Discord");
    return [createDiscordAdapter(config.discord, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "discord") })];
  };
  h = await startGatewayHarness({ DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, DISCORD_ALLOWED_USERS: `${ada.id},${bob.id}`, ...env }, undefined, { adapters });
  return { fake: discord, h, general: guild.channels.general ?? "", ada, bob };
}

function customIds(message: SentMessage | undefined): string[] {
  const rows = (message?.components ?? []) as { components?: { custom_id?: string }[] }[];
  return rows.flatMap((row) => (row.components ?? []).map((button) => button.custom_id ?? ""));
}

function waitForPrompt(discord: DiscordFake): Promise<SentMessage> {
  return discord.waitFor(() => discord.sent.find((m) => m.content.startsWith("**Approve this `terminal` call?**") && m.components.length > 0), "the approval prompt", 20_000);
}


describe("streaming and approval on Discord (discord.js against the stand-in)", () => {
  it("streams a slow answer into one message that is edited until it reads the whole answer", async () => {
    const { fake, h, ada } = await start({ HERMES_STREAMING: "edit" });
    const answer = "Here is the plan:\n- **Build** the image first\n- Then ship it to staging and watch the logs";
    h.llm.enqueue({ kind: "text", text: answer, chunks: 8, delayMsBetweenChunks: 350 });
    const dm = fake.postDm(ada, "what is the plan?");
    await fake.waitFor(() => fake.sentTo(dm.channelId)[0]?.content === answer && fake.sentTo(dm.channelId)[0], "the streamed answer to be complete", 20_000);
    await h.gateway.waitIdle(`agent:main:discord:dm:${dm.channelId}`);

    const sent = fake.sentTo(dm.channelId);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.content).toBe(answer);
    expect(sent[0]?.edits.length).toBeGreaterThanOrEqual(1);
    // The first text went out before the model finished: the message was created shorter than the answer.
    expect(sent[0]?.body.content).not.toBe(answer);
    expect(fake.sent.filter((m) => m.content.includes("**Build**"))).toHaveLength(1);
  });

  it("runs the call once the asker presses Approve, and tells someone else the prompt is not theirs", async () => {
    const { fake, h, general, ada, bob } = await start(TERMINAL_TOOLS);
    h.llm.enqueue(terminalCall("echo approved-e2e"), { kind: "text", text: "Done." });
    fake.postMessage(general, ada, `${fake.mention(fake.bot)} please run the echo`);
    const prompt = await waitForPrompt(fake);
    const id = approvalIdOf(customIds(prompt));
    expect(prompt.channelId).toBe(general);
    expect(customIds(prompt)).toEqual([`/approve ${id}`, `/approve ${id} always`, `/deny ${id}`]);

    const byBob = fake.pressButton(bob, prompt.id, `/approve ${id}`);
    await fake.waitFor(() => fake.sent.find((m) => m.content === "Only the person whose message started this can answer it."), "the notice to Bob");
    expect(byBob.callbacks).toEqual([{ type: 6, flags: 0 }]);
    expect(h.llm.requests).toHaveLength(1);
    expect(prompt.edits).toEqual([]);

    fake.pressButton(ada, prompt.id, `/approve ${id}`);
    await fake.waitFor(() => fake.sent.find((m) => m.content === "Done."), "the answer after the approved call", 20_000);
    expect(prompt.content).toBe("**`terminal` call**\n```\necho approved-e2e\n```\nApproved: the `terminal` call runs now.");
    expect(prompt.components).toEqual([]);
    expect(await secondRequest(h)).toContain("approved-e2e");
    expect(fake.sent.filter((m) => m.content.includes("Approved:"))).toEqual([prompt]);
  });

  it("does not run the call when the asker presses Deny", async () => {
    const { fake, h, ada } = await start(TERMINAL_TOOLS);
    h.llm.enqueue(terminalCall("echo denied-e2e"), { kind: "text", text: "All right, I will not run it." });
    const dm = fake.postDm(ada, "please run the echo");
    const prompt = await waitForPrompt(fake);
    const id = approvalIdOf(customIds(prompt));

    const press = fake.pressButton(ada, prompt.id, `/deny ${id}`);
    await fake.waitFor(() => prompt.content.endsWith("Denied: the `terminal` call will not run.") && prompt, "the prompt to show the denial", 20_000);
    expect(press.callbacks).toEqual([{ type: 6, flags: 0 }]);
    expect(prompt.components).toEqual([]);
    expect(await secondRequest(h)).toContain("denied this terminal call");
    await fake.waitFor(() => fake.sent.find((m) => m.content === "All right, I will not run it."), "the answer after the denial", 20_000);
    await h.gateway.waitIdle(`agent:main:discord:dm:${dm.channelId}`);
    // The press is answered by the edit alone: nothing else is posted besides the model's answer.
    expect(fake.sentTo(dm.channelId).map((m) => m.id)).toEqual([prompt.id, fake.sent.at(-1)?.id]);
  });

  it("counts no answer within the timeout as a denial, said in the chat", async () => {
    const { fake, h, ada } = await start({ ...TERMINAL_TOOLS, HERMES_APPROVAL_TIMEOUT_S: "1" });
    h.llm.enqueue(terminalCall("echo timed-out-e2e"), { kind: "text", text: "No answer, so I did not run it." });
    const dm = fake.postDm(ada, "please run the echo");
    await waitForPrompt(fake);

    await fake.waitFor(() => fake.sentTo(dm.channelId).find((m) => m.content === "No answer within 1 second: the `terminal` call was not run."), "the timeout notice", 20_000);
    expect(await secondRequest(h)).toContain("did not answer");
  });
});
