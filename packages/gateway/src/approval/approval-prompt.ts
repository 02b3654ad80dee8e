import type { OutboundButton } from "../core/adapter.js";

// Discord's 2,000-character messages must hold the whole prompt, so its buttons stay with it in one message.
const MAX_DETAIL_CHARS = 1_200;

/** What the person is asked to approve: the command, or the change, in the words of the tool's arguments. */
export function approvalSummary(tool: string, args: Record<string, unknown>): string {
  const text = (name: string): string | undefined => (typeof args[name] === "string" ? (args[name] as string) : undefined);
  if (tool === "terminal" && text("command") !== undefined) {
    const cwd = text("cwd");
    return codeBlock(text("command") ?? "") + (cwd === undefined ? "" : `\nin \`${cwd.replaceAll("`", "'")}\``);
  }
  const target = text("path");
  const change = text("content") ?? text("patch") ?? text("diff");
  if (target !== undefined && change !== undefined) return `\`${target.replaceAll("`", "'")}\`\n${codeBlock(change)}`;
  return codeBlock(JSON.stringify(args, null, 2));
}

/** The prompt's text; the buttons come with it, and the typed commands work where buttons do not. */
export function approvalPromptText(tool: string, summary: string, timeoutMs: number): string {
  return [
    `**Approve this \`${tool}\` call?**`,
    summary,
    `Tap a button, or reply /approve, /approve always (for the rest of this conversation) or /deny. No answer within ${duration(timeoutMs)} counts as a denial.`,
  ].join("\n");
}

/** The prompt as it reads once decided: what was asked and what became of it, without the instructions. */
export function decidedPromptText(tool: string, summary: string, outcome: string): string {
  return [`**\`${tool}\` call**`, summary, outcome].join("\n");
}

export function approvalButtons(id: string): OutboundButton[] {
  return [
    { label: "Approve", value: `/approve ${id}`, style: "primary" },
    { label: "Approve for this conversation", value: `/approve ${id} always` },
    { label: "Deny", value: `/deny ${id}`, style: "danger" },
  ];
}

export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds % 3600 === 0) return plural(seconds / 3600, "hour");
  if (seconds % 60 === 0) return plural(seconds / 60, "minute");
  return plural(seconds, "second");
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** A fence longer than any run of backticks inside, so the command cannot close its own block. */
function codeBlock(body: string): string {
  const clipped = body.length > MAX_DETAIL_CHARS ? `${body.slice(0, MAX_DETAIL_CHARS)}\n… (${body.length - MAX_DETAIL_CHARS} more characters)` : body;
  const longest = Math.max(0, ...[...clipped.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}\n${clipped}\n${fence}`;
}
