/**
 * The agent writes Markdown; Slack renders its own "mrkdwn". This converts one to the other from marked's syntax tree
 * and makes sure nothing the model writes can act as a Slack control sequence: `&`, `<` and `>` are escaped everywhere
 * (so `<!channel>`, `<!here>` and `<@U123>` show as text instead of notifying anyone) and bare
 * `@channel`/`@here`/`@everyone` get a zero-width space so they can never become broadcasts.
 */
import { Lexer, type MarkedToken, type Token, type Tokens } from "marked";
import { tableText } from "@hermes/gateway";
import { neutralizeBroadcasts, plainSlackText } from "./mrkdwn-escape.js";
import { inlineMrkdwn } from "./mrkdwn-inline.js";

export { plainSlackText } from "./mrkdwn-escape.js";

const HORIZONTAL_RULE = "──────────";

/** Converts the agent's Markdown to Slack mrkdwn. */
export function markdownToMrkdwn(markdown: string): string {
  const tokens = Lexer.lex(markdown.replace(/\r\n?/g, "\n"), { gfm: true, breaks: false });
  // Once more over the whole: a broadcast split across tokens ("\@here") is whole again in the output.
  return neutralizeBroadcasts(blocksMrkdwn(tokens, 0));
}

/** Blocks one per line; a blank line in the Markdown stays a blank line. */
function blocksMrkdwn(tokens: readonly Token[], listDepth: number): string {
  let out = "";
  let blankLine = false;
  for (const token of tokens) {
    if (token.type === "space") {
      blankLine = out !== "";
      continue;
    }
    if (token.type === "checkbox") continue;
    const block = blockMrkdwn(token as MarkedToken, listDepth);
    out += out === "" ? block : (blankLine ? "\n\n" : "\n") + block;
    blankLine = false;
  }
  return out;
}

function blockMrkdwn(token: MarkedToken, listDepth: number): string {
  switch (token.type) {
    case "paragraph":
      return inlineMrkdwn(token.tokens);
    case "text":
      return token.tokens ? inlineMrkdwn(token.tokens) : plainSlackText(token.text);
    case "heading":
      return `*${inlineMrkdwn(token.tokens, { bold: true })}*`;
    case "code":
      // Slack shows a language tag as the first line of the code, so it is dropped.
      return codeBlock(token.text);
    case "blockquote":
      // Slack stores a typed quote as "&gt; text" and renders it as a quote, so the escaped marker is what it expects.
      return blocksMrkdwn(token.tokens, listDepth).replace(/^/gm, "&gt; ");
    case "list":
      return listMrkdwn(token, listDepth);
    case "table":
      return codeBlock(tableText(token));
    case "hr":
      return HORIZONTAL_RULE;
    case "html":
      return plainSlackText(token.text.trimEnd());
    case "def":
      // A reference definition renders as nothing in Markdown, but in chat its line is often the answer's list of sources.
      return plainSlackText(token.raw.trim());
    default:
      return plainSlackText(token.raw.trimEnd());
  }
}

function codeBlock(text: string): string {
  return "```\n" + plainSlackText(text) + "\n```";
}

function listMrkdwn(list: Tokens.List, listDepth: number): string {
  const indent = "  ".repeat(listDepth);
  const start = typeof list.start === "number" ? list.start : 1;
  return list.items
    .map((item, index) => {
      const marker = list.ordered ? `${start + index}. ` : "• ";
      const box = item.task ? (item.checked === true ? "☑ " : "☐ ") : "";
      return (indent + marker + box + blocksMrkdwn(item.tokens, listDepth + 1).replace(/^ +/, "")).trimEnd();
    })
    .join("\n");
}
