import { ChannelType, Events, MessageFlags, type ButtonInteraction, type Client } from "discord.js";
import type { Logger } from "@hermes/agent";
import type { AbortableSleep, AdapterContext } from "@hermes/gateway";
import { buttonPressMessage, type ButtonPressView } from "./button-press.js";
import type { ChannelPlace } from "./normalize.js";
import { receiveWithRetry } from "./receive-with-retry.js";

export interface ButtonIntakeOptions {
  logger: Logger;
  /** The gateway, while the adapter accepts messages; undefined once it is stopping. */
  context: () => AdapterContext | undefined;
  now: () => number;
  sleep: AbortableSleep;
  signal: () => AbortSignal;
}

/** Told to the presser alone when the press could not be handed to the gateway. */
export const BUTTON_PRESS_FAILED_TEXT = "Sorry, that button press could not be taken. Please try again.";

/**
 * Takes presses of the bot's buttons: each is acknowledged at once (so Discord shows no "interaction failed"), then
 * handed to the gateway like a typed message. Who may press what is the gateway's decision, not the adapter's.
 */
export function acceptButtonPresses(client: Client, options: ButtonIntakeOptions): void {
  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isButton()) return;
    handlePress(interaction, options).catch((error: unknown) => {
      options.logger.error("could not handle a Discord button press", { interactionId: interaction.id, error });
    });
  });
}

async function handlePress(interaction: ButtonInteraction, options: ButtonIntakeOptions): Promise<void> {
  const context = options.context();
  if (!context || interaction.user.bot) return;
  const where = { interactionId: interaction.id, messageId: interaction.message.id, channelId: interaction.channelId };
  // The press still counts when the acknowledgement fails; the user only sees Discord's "interaction failed".
  await interaction.deferUpdate().catch((error: unknown) => options.logger.warn("could not acknowledge a Discord button press", { ...where, error }));
  const outcome = await receiveWithRetry(() => context.receive(buttonPressMessage(viewOfPress(interaction, options.now()))), {
    sleep: options.sleep,
    signal: options.signal(),
  });
  if (outcome.ok) return;
  options.logger.error("could not hand a Discord button press to the gateway", { ...where, reason: outcome.reason, error: outcome.error });
  await interaction
    .followUp({ content: BUTTON_PRESS_FAILED_TEXT, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } })
    .catch((error: unknown) => options.logger.warn("could not tell the presser their Discord button press was lost", { ...where, error }));
}

function viewOfPress(interaction: ButtonInteraction, now: number): ButtonPressView {
  return {
    interactionId: interaction.id,
    customId: interaction.customId,
    user: { id: interaction.user.id, name: interaction.user.globalName ?? interaction.user.username },
    messageId: interaction.message.id,
    place: placeOfPress(interaction),
    timestamp: Number.isFinite(interaction.createdTimestamp) ? interaction.createdTimestamp : now,
  };
}

function placeOfPress(interaction: ButtonInteraction): ChannelPlace {
  const channel = interaction.channel;
  const guild = interaction.guildId ? { guildId: interaction.guildId, ...(interaction.guild?.name ? { guildName: interaction.guild.name } : {}) } : {};
  const channelName = channel && "name" in channel && typeof channel.name === "string" ? { channelName: channel.name } : {};
  if (!interaction.guildId || channel?.type === ChannelType.DM) return { channelId: interaction.channelId, channelKind: "dm" };
  if (channel?.isThread()) return { channelId: interaction.channelId, channelKind: "thread", ...channelName, ...guild, ...(channel.parentId ? { parentChannelId: channel.parentId } : {}) };
  return { channelId: interaction.channelId, channelKind: "guild", ...channelName, ...guild };
}
