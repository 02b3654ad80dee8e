import { Events, MessageFlags, type ChatInputCommandInteraction, type Client } from "discord.js";
import type { Logger } from "@hermes/agent";
import { COMMANDS, type AbortableSleep, type AdapterContext } from "@hermes/gateway";
import type { PendingInteractions } from "./pending-interactions.js";
import { receiveWithRetry } from "./receive-with-retry.js";
import { ARGS_OPTION, discordSlashCommands, slashCommandMessage, type SlashInvocation } from "./slash-commands.js";

export interface SlashIntakeOptions {
  logger: Logger;
  pending: PendingInteractions;
  /** The gateway, while the adapter accepts messages; undefined once it is stopping. */
  context: () => AdapterContext | undefined;
  now: () => number;
  sleep: AbortableSleep;
  signal: () => AbortSignal;
}

/** Shown in place of "thinking…" when the command could not be handed to the gateway. */
export const SLASH_COMMAND_FAILED_TEXT = "Sorry, that command could not be run. Please try again.";
const NO_PINGS = { parse: [] };

/** Registers the chat commands as global application commands once the client is ready; a refusal is logged, never fatal. */
export function registerSlashCommandsOnReady(client: Client, logger: Logger): void {
  client.once(Events.ClientReady, (ready) => {
    const commands = discordSlashCommands(COMMANDS);
    ready.application.commands.set(commands).then(
      () => logger.info("Discord slash commands registered", { count: commands.length }),
      (error: unknown) => logger.warn("could not register the Discord slash commands; typed commands still work", { error }),
    );
  });
}

/** Takes slash commands from the client: each is deferred at once, then handed to the gateway like a typed command. */
export function acceptSlashCommands(client: Client, options: SlashIntakeOptions): void {
  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand()) return;
    handleSlashCommand(interaction, options).catch((error: unknown) => {
      options.logger.error("could not handle a Discord slash command", { interactionId: interaction.id, error });
    });
  });
}

async function handleSlashCommand(interaction: ChatInputCommandInteraction, options: SlashIntakeOptions): Promise<void> {
  const context = options.context();
  if (!context || interaction.user.bot) return;
  const where = { interactionId: interaction.id, command: interaction.commandName, channelId: interaction.channelId };
  // In a guild a command's output (status, usage, pairing) concerns the invoker alone; a DM is theirs anyway.
  const ephemeral = interaction.inGuild();
  try {
    await interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
    const flags = ephemeral ? MessageFlags.Ephemeral : undefined;
    options.pending.remember(interaction.id, {
      editReply: async (text, components) => (await interaction.editReply({ content: text, allowedMentions: NO_PINGS, components })).id,
      followUp: async (text, components) => (await interaction.followUp({ content: text, allowedMentions: NO_PINGS, components, ...(flags ? { flags } : {}) })).id,
      edit: async (messageId, text, components) => void (await interaction.editReply({ message: messageId, content: text, allowedMentions: NO_PINGS, components })),
    });
  } catch (error) {
    // Without the acknowledgement the token cannot be answered; the reply still comes, as a channel message.
    options.logger.warn("could not acknowledge a Discord slash command; its reply goes to the channel", { ...where, error });
  }
  const outcome = await receiveWithRetry(() => context.receive(slashCommandMessage(invocationOf(interaction, options.now()))), {
    sleep: options.sleep,
    signal: options.signal(),
  });
  if (outcome.ok) return;
  options.logger.error("could not hand a Discord slash command to the gateway", { ...where, reason: outcome.reason, error: outcome.error });
  if (options.pending.has(interaction.id)) await options.pending.reply(interaction.id, SLASH_COMMAND_FAILED_TEXT).catch(() => undefined);
}

function invocationOf(interaction: ChatInputCommandInteraction, now: number): SlashInvocation {
  const channel = interaction.channel;
  const thread = channel?.isThread() ? channel : undefined;
  const guild = interaction.guildId ? { id: interaction.guildId, ...(interaction.guild?.name ? { name: interaction.guild.name } : {}) } : undefined;
  const channelName = channel && "name" in channel && typeof channel.name === "string" ? channel.name : undefined;
  return {
    interactionId: interaction.id,
    name: interaction.commandName,
    args: (interaction.options.getString(ARGS_OPTION) ?? "").trim(),
    user: { id: interaction.user.id, name: interaction.user.globalName ?? interaction.user.username },
    channelId: interaction.channelId,
    ...(guild ? { guild } : {}),
    ...(channelName ? { channelName } : {}),
    ...(thread?.parentId ? { parentChannelId: thread.parentId } : {}),
    timestamp: now,
  };
}
