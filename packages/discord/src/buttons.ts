import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type APIActionRowComponent, type APIComponentInMessageActionRow } from "discord.js";
import type { OutboundButton } from "@hermes/gateway";

/** Discord allows at most five buttons in one action row. */
export const MAX_BUTTONS_PER_ROW = 5;
const LABEL_LIMIT = 80;

export type MessageComponents = APIActionRowComponent<APIComponentInMessageActionRow>[];

/**
 * A message's buttons as Discord components: one action row, each button's `custom_id` its value (which comes back on
 * a press, so it is never shortened; labels are only shown and may be). No buttons → no row at all; on an edit that
 * empty list removes the buttons the message had.
 */
export function componentsOf(buttons: readonly OutboundButton[] | undefined): MessageComponents {
  if (!buttons || buttons.length === 0) return [];
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    buttons.slice(0, MAX_BUTTONS_PER_ROW).map((button) =>
      new ButtonBuilder().setCustomId(button.value).setLabel(clip(button.label, LABEL_LIMIT)).setStyle(styleOf(button.style)),
    ),
  );
  return [row.toJSON()];
}

function styleOf(style: OutboundButton["style"]): ButtonStyle {
  if (style === "primary") return ButtonStyle.Primary;
  if (style === "danger") return ButtonStyle.Danger;
  return ButtonStyle.Secondary;
}

function clip(text: string, limit: number): string {
  return text.length > limit ? text.slice(0, limit) : text;
}
