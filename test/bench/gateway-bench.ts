import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chunkMarkdown } from "@hermes/gateway";
import { startGatewayHarness } from "../support/gateway-harness.js";

export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  target?: { max?: number; min?: number };
}

/** Chunking a long agent reply with code blocks to Telegram's limit. */
export function chunkingBenchmark(): BenchFigure {
  const paragraph = "Some prose with `inline code`, a [link](https://example.org) and **bold** text. ".repeat(12);
  const code = "```ts\n" + "const value = compute(input, options); // comment\n".repeat(40) + "```";
  const reply = Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? code : paragraph)).join("\n\n");
  const runs = 50;
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i += 1) chunkMarkdown(reply, 4096);
  const ms = Number(process.hrtime.bigint() - started) / 1e6 / runs;
  return { name: `chunk a ${Math.round(reply.length / 1000)} KB reply to 4096`, value: ms, unit: "ms", target: { max: 20 } };
}

/** Messages through the whole gateway (SQLite, hooks, inline queue, delivery) with an HTTP model that answers at once. */
export async function gatewayThroughputBenchmark(): Promise<BenchFigure[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-gw-"));
  const h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:*", HERMES_REFLECTION: "off", HERMES_WORKERS: "4" }, home);
  h.llm.enqueue(...Array.from({ length: 400 }, () => ({ kind: "text" as const, text: "ok", chunks: 1 })));
  try {
    const chats = 10;
    const perChat = 20;
    const latencies: number[] = [];
    const started = Date.now();
    await Promise.all(
      Array.from({ length: chats }, async (_, chat) => {
        const chatId = String(1_000 + chat);
        for (let i = 0; i < perChat; i += 1) {
          const sentAt = Date.now();
          await h.adapter.userSays(`message ${i}`, { chat: { id: chatId, type: "dm" }, user: { id: chatId } });
          await h.gateway.waitIdle(`agent:main:telegram:dm:${chatId}`);
          latencies.push(Date.now() - sentAt);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const p = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    return [
      { name: `gateway throughput, ${chats} chats × ${perChat} messages`, value: (chats * perChat) / seconds, unit: "msg/s", target: { min: 20 } },
      { name: "gateway latency p50 (receive → delivered)", value: p(0.5), unit: "ms", target: { max: 250 } },
      { name: "gateway latency p95 (receive → delivered)", value: p(0.95), unit: "ms", target: { max: 1000 } },
    ];
  } finally {
    await h.close();
    await rm(home, { recursive: true, force: true });
  }
}
