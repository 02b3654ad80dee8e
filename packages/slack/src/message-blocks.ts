import type { types } from "@slack/bolt";
import type { OutboundButton } from "@hermes/gateway";

/** Slack refuses a section whose text is longer than this (characters). */
export const SECTION_TEXT_LIMIT = 3_000;

/** Slack refuses a button whose label is longer than this. */
const BUTTON_LABEL_LIMIT = 75;

/** The `action_id` of the button at `index`: unique within the message, as Slack requires. */
export function buttonActionId(index: number): string {
  return `hermes_btn_${index}`;
}

export type SlackBlock = types.SectionBlock | types.ActionsBlock;

/**
 * The Block Kit layout of a message: its text, then the buttons in one actions block. Once blocks are given Slack
 * shows them instead of `text` (which stays the notification fallback), so the text must be in the blocks too; a
 * text too long for one section goes into several. Markdown-formatted text is mrkdwn; plain text is `plain_text`,
 * which Slack shows without formatting. Undefined when there is nothing a plain `text` could not show.
 */
export function messageBlocks(text: string, mrkdwn: boolean, buttons: readonly OutboundButton[] | undefined): SlackBlock[] | undefined {
  if (!buttons || buttons.length === 0) return undefined;
  return [...sectionBlocks(text, mrkdwn), actionsBlock(buttons)];
}

export function sectionBlocks(text: string, mrkdwn: boolean): types.SectionBlock[] {
  return sectionTexts(text).map((part) => ({ type: "section", text: mrkdwn ? { type: "mrkdwn", text: part } : { type: "plain_text", text: part, emoji: true } }));
}

function actionsBlock(buttons: readonly OutboundButton[]): types.ActionsBlock {
  const elements = buttons.map((button, index) => {
    const element: types.Button = { type: "button", action_id: buttonActionId(index), text: { type: "plain_text", text: button.label.slice(0, BUTTON_LABEL_LIMIT), emoji: true }, value: button.value };
    if (button.style) element.style = button.style;
    return element;
  });
  return { type: "actions", block_id: "hermes_buttons", elements };
}

/**
 * Splits a text into parts of at most SECTION_TEXT_LIMIT, at the last line break before the limit when there is one
 * (else the last space). A code block cut in two is closed at the end of one part and reopened in the next, so the
 * rest is not shown as prose; an entity (`&amp;`) or a surrogate pair is never cut.
 */
export function sectionTexts(text: string): string[] {
  const parts: string[] = [];
  let rest = text.length > 0 ? text : " ";
  while (rest.length > SECTION_TEXT_LIMIT) {
    // Room for a fence that may have to be added at both ends.
    const room = SECTION_TEXT_LIMIT - 4;
    let cut = rest.lastIndexOf("\n", room);
    if (cut < room / 2) cut = rest.lastIndexOf(" ", room);
    if (cut < room / 2) cut = safeCut(rest, room);
    let part = rest.slice(0, cut);
    rest = rest.slice(cut).replace(/^[\n ]/, "");
    if (openFence(part)) {
      part = `${part}\n\`\`\``;
      rest = `\`\`\`\n${rest}`;
    }
    parts.push(part);
  }
  parts.push(rest);
  return parts;
}

function openFence(part: string): boolean {
  return (part.match(/```/g)?.length ?? 0) % 2 === 1;
}

function safeCut(text: string, at: number): number {
  let cut = at;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  const amp = text.lastIndexOf("&", cut - 1);
  const entity = amp >= 0 ? /^&(?:amp|lt|gt);/.exec(text.slice(amp)) : null;
  return entity && amp + entity[0].length > cut ? amp : cut;
}
