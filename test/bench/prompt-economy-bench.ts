import { copyFile, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { RecordedRequest, ScriptedReply } from "../fakes/llm-server.js";
import { startGatewayHarness } from "../support/gateway-harness.js";
import { REPO_ROOT } from "../support/run-cli.js";
import { QUICK } from "./bench-words.js";
import type { BenchFigure } from "./gateway-bench.js";

const TURNS = QUICK ? 30 : 100;
const SUMMARY_MARK = "SUMMARY-OF-EARLIER-TURNS";
const CHAT = "4242";

/** Source files of this repository, copied into the agent's workspace so read_file returns real, varied text. */
async function fillWorkspace(workspace: string): Promise<string[]> {
  await mkdir(workspace, { recursive: true });
  const dir = path.join(REPO_ROOT, "packages/gateway/src/core");
  const files = (await readdir(dir)).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts")).sort().slice(0, 20);
  for (const name of files) await copyFile(path.join(dir, name), path.join(workspace, name));
  return files;
}

type WireMessage = { role?: string; content?: unknown; tool_calls?: unknown };

function lastUserText(request: RecordedRequest): string {
  const messages = request.messages as WireMessage[];
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role === "user") return JSON.stringify(message.content);
  }
  return "";
}

/**
 * A tool-heavy conversation: every turn the model reads a file and thinks aloud (two tool calls), then answers.
 * A request without tools is a compression summary; it gets a marked summary so it is not counted as history.
 */
function scriptedModel(files: readonly string[]): (request: RecordedRequest) => ScriptedReply {
  return (request) => {
    if (request.tools.length === 0) return { kind: "text", text: `${SUMMARY_MARK}: the user asked about several source files; each was read and explained.`, chunks: 1 };
    const turn = Number(/turn (\d+)/.exec(lastUserText(request))?.[1] ?? 0);
    const last = (request.messages as WireMessage[]).at(-1);
    if (last?.role === "user") {
      return {
        kind: "tools",
        calls: [
          { name: "read_file", arguments: { path: files[turn % files.length] ?? "" } },
          { name: "think", arguments: { thought: `Turn ${turn}: read the file, then explain what it does and how it fits the gateway.` } },
        ],
      };
    }
    return { kind: "text", text: `Turn ${turn}: this file ${"handles one part of the gateway's message flow and its failure cases. ".repeat(4)}`, chunks: 1 };
  };
}

function systemPromptOf(request: RecordedRequest): string {
  const first = (request.messages as WireMessage[])[0];
  return first && (first.role === "system" || first.role === "developer") && typeof first.content === "string" ? first.content : "";
}

function commonPrefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  return i;
}

/**
 * Over a scripted 100-turn tool-heavy conversation with the LLM stand-in: how much of the conversation each request
 * carries (its size against the whole uncompressed history so far: system prompt, tool schemas and every message
 * ever exchanged), and how much of each request repeats the previous one byte for byte from the start (what a
 * provider's prompt cache can reuse). Compression summaries are left out of both.
 */
export async function promptEconomyBenchmark(): Promise<BenchFigure[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-prompt-"));
  const files = await fillWorkspace(path.join(home, "workspace"));
  const h = await startGatewayHarness(
    // One user writes all 100 turns within a minute or two: far past the default rate limit of 20 per minute.
    { HERMES_ALLOWED_USERS: "telegram:*", HERMES_REFLECTION: "off", HERMES_RATE_LIMIT: "10000", HERMES_TOOLS: "read_file,list_directory,search_files,think,memory,session_search" },
    home,
  );
  try {
    h.llm.enqueue(...Array.from({ length: TURNS * 4 }, () => scriptedModel(files)));
    for (let turn = 0; turn < TURNS; turn += 1) {
      await h.adapter.userSays(`turn ${turn}: what does the next file do?`, { chat: { id: CHAT, type: "dm" }, user: { id: CHAT } });
      await h.gateway.waitIdle(`agent:main:telegram:dm:${CHAT}`);
    }
    const requests = h.llm.requests.filter((request) => request.tools.length > 0);
    const first = requests[0];
    if (!first || requests.length < TURNS * 2) throw new Error(`only ${requests.length} model requests for ${TURNS} turns`);
    const systemChars = systemPromptOf(first).length;
    const toolChars = JSON.stringify(first.tools).length;

    const seen = new Set<string>();
    let historyChars = 0;
    let sentTotal = 0;
    let fullTotal = 0;
    let prefixShareSum = 0;
    let previous: string | undefined;
    for (const request of requests) {
      const messages = (request.messages as WireMessage[]).slice(systemPromptOf(request) ? 1 : 0).map((message) => JSON.stringify(message));
      for (const message of messages) {
        if (seen.has(message) || message.includes(SUMMARY_MARK)) continue;
        seen.add(message);
        historyChars += message.length;
      }
      const wire = JSON.stringify([request.tools, request.messages]);
      sentTotal += wire.length;
      fullTotal += Math.max(wire.length, systemPromptOf(request).length + JSON.stringify(request.tools).length + historyChars);
      if (previous !== undefined) prefixShareSum += commonPrefix(previous, wire) / wire.length;
      previous = wire;
    }
    return [
      { name: "first request: system prompt", value: systemChars, unit: "chars" },
      { name: "first request: tool schemas", value: toolChars, unit: "chars" },
      { name: `${TURNS}-turn tool-heavy chat: input per turn vs full history`, value: (100 * sentTotal) / fullTotal, unit: "%", target: { max: 35 } },
      { name: `${TURNS}-turn chat: byte-identical prefix of previous request`, value: (100 * prefixShareSum) / (requests.length - 1), unit: "%", target: { min: 90 } },
      { name: `${TURNS}-turn chat: model requests (compressions)`, value: h.llm.requests.length, unit: `(${h.llm.requests.length - requests.length})` },
    ];
  } finally {
    await h.close();
    await rm(home, { recursive: true, force: true });
  }
}
