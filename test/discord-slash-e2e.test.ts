import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";
import { createDiscordAdapter } from "@hermes/discord";
import { startDiscordFake, type DiscordFake, type FakeInteraction, type FakeUser } from "./fakes/discord/index.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

let fake: DiscordFake | undefined;
let h: GatewayHarness | undefined;
const SLOW_MACHINE = { timeout: 15_000, interval: 20 };

afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = undefined;
  fake = undefined;
});

interface World {
  fake: DiscordFake;
  h: GatewayHarness;
  general: string;
  ada: FakeUser;
  warnings: string[];
}

async function start(env: Record<string, string> = {}, before?: (fake: DiscordFake) => void): Promise<World> {
  const discord = await startDiscordFake();
  fake = discord;
  before?.(discord);
  const guild = discord.addGuild({ name: "Hermes Lab", channels: ["general"] });
  const ada = discord.addUser("ada", { globalName: "Ada" });
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (message) => void warnings.push(message), child: () => logger };
  const adapters = (config: GatewayConfig): PlatformAdapter[] => {
    if (!config.discord) throw new Error("DISCORD_BOT_TOKEN did not enable Discord");
    const attachmentsDir = path.join(config.paths.workspace, "attachments", "discord");
    return [createDiscordAdapter(config.discord, { logger, attachmentsDir, connectTimeoutMs: 20_000 })];
  };
  const harness = await startGatewayHarness(
    { DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, DISCORD_ALLOWED_USERS: ada.id, ...env },
    undefined,
    { adapters },
  );
  h = harness;
  return { fake: discord, h: harness, general: guild.channels.general ?? "", ada, warnings };
}

async function answered(fake: DiscordFake, interaction: FakeInteraction, parts = 1): Promise<FakeInteraction> {
  return fake.waitFor(() => interaction.replies.length >= parts && interaction, `${parts} reply part(s) to /${interaction.name}`, 15_000);
}

describe("Discord slash commands (discord.js against the fake Discord)", () => {
  it("registers the chat commands as application commands at start-up", async () => {
    const { fake } = await start();
    const [commands] = await fake.waitFor(() => fake.commandSets.length > 0 && fake.commandSets, "the command registration");
    const names = (commands ?? []).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(["new", "status", "model", "help"]));
    const model = commands?.find((c) => c.name === "model");
    expect(model?.options).toEqual([expect.objectContaining({ type: 3, name: "args", required: false })]);
    expect(commands?.find((c) => c.name === "status")?.options ?? []).toEqual([]);
  });

  it("answers /status in a guild through the interaction: deferred (ephemeral), then the reply edited in", async () => {
    const { fake, h, general, ada } = await start();
    const interaction = await answered(fake, fake.runSlashCommand(ada, "status", { channelId: general }));
    expect(interaction.callbacks).toEqual([{ type: 5, flags: 64 }]);
    expect(interaction.replies).toHaveLength(1);
    expect(interaction.replies[0]?.kind).toBe("edit");
    expect(interaction.replies[0]?.content).toContain("No conversation yet");
    expect(fake.sent).toEqual([]);
    expect(h.llm.requests).toHaveLength(0);
  });

  it("starts a new conversation with /new in a DM, in the DM's own session", async () => {
    const { fake, h, ada } = await start();
    h.llm.enqueue({ kind: "text", text: "Hello Ada." });
    const dm = fake.postDm(ada, "hi");
    await fake.waitForSent(1);
    const key = `agent:main:discord:dm:${dm.channelId}`;
    await h.gateway.waitIdle(key);
    const before = await h.gateway.store.sessions.active(key);
    expect(before).toBeDefined();

    const interaction = await answered(fake, fake.runSlashCommand(ada, "new"));
    expect(interaction.callbacks).toEqual([{ type: 5, flags: 0 }]);
    expect(interaction.replies[0]?.content).toContain("Started a new conversation");
    expect(await h.gateway.store.sessions.active(key)).toBeUndefined();
    expect(fake.sent).toHaveLength(1);
  });

  it("passes the args option on as the command's arguments", async () => {
    const { fake, h, ada } = await start();
    const interaction = await answered(fake, fake.runSlashCommand(ada, "model", { args: "nowhere/none" }));
    expect(interaction.replies[0]?.content).toContain("Send a message first");
    const record = (await h.gateway.store.inbound.recent(5)).find((r) => r.messageId === `interaction:${interaction.id}`);
    expect(JSON.parse(record?.payload ?? "{}")).toMatchObject({ text: "/model nowhere/none", user: { id: ada.id } });
  });

  it("gives an unknown user the pairing reply in a DM and nothing in a guild", async () => {
    const { fake, h, general } = await start({ DISCORD_ALLOWED_USERS: "" });
    const stranger = fake.addUser("stranger");
    const inGuild = fake.runSlashCommand(stranger, "status", { channelId: general });
    const inDm = await answered(fake, fake.runSlashCommand(stranger, "status"));
    expect(inDm.replies[0]?.content).toMatch(/pairing code: [A-Z0-9]{8}/i);
    await vi.waitFor(async () => {
      const records = await h.gateway.store.inbound.recent(10);
      expect(records.find((r) => r.messageId === `interaction:${inGuild.id}`)?.status).toBe("ignored");
    }, SLOW_MACHINE);
    expect(inGuild.replies).toEqual([]);
    expect(fake.sent).toEqual([]);
  });

  it("survives refused REST calls: a failed registration is logged, a failed edit falls back to the channel", async () => {
    const { fake, ada, warnings } = await start({}, (discord) => discord.failNextInteractionCall("commands", 400));
    await vi.waitFor(() => expect(warnings).toContain("could not register the Discord slash commands; typed commands still work"), SLOW_MACHINE);
    fake.failNextInteractionCall("edit", 404);
    const interaction = fake.runSlashCommand(ada, "help");
    const [fallback] = await fake.waitForSent(1);
    expect(fallback?.channelId).toBe(fake.dmChannelId(ada));
    expect(fallback?.content).toContain("/status");
    expect(interaction.callbacks).toHaveLength(1);

    const again = await answered(fake, fake.runSlashCommand(ada, "help"));
    expect(again.replies[0]?.content).toContain("/status");
  });

  it("answers in the channel when the acknowledgement is refused", async () => {
    const { fake, general, ada, warnings } = await start();
    fake.failNextInteractionCall("callback", 400);
    const interaction = fake.runSlashCommand(ada, "status", { channelId: general });
    const [fallback] = await fake.waitForSent(1);
    expect(fallback?.channelId).toBe(general);
    expect(fallback?.content).toContain("No conversation yet");
    expect(fallback?.replyTo).toBeUndefined();
    expect(interaction.callbacks).toEqual([]);
    expect(warnings).toContain("could not acknowledge a Discord slash command; its reply goes to the channel");
  });
});
