/**
 * Benchmarks (`npm run bench`): figures for the agent core's own overhead, with the model replaced by pi-ai's faux
 * provider so only our code is measured. Prints one line per benchmark; targets live here, never in tests.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, type Message } from "@mariozechner/pi-ai";
import { HermesAgent, repairHistory, ToolRegistry, defineTool } from "@hermes/agent";
import { Type } from "@sinclair/typebox";
import { chunkingBenchmark, gatewayThroughputBenchmark } from "./gateway-bench.js";
import { cliHelpBenchmark } from "./cli-help-bench.js";
import { startupBenchmark } from "./startup-bench.js";
import { sessionSearchBenchmark, storeAppendBenchmark } from "./store-bench.js";
import { postgresSessionSearchBenchmark } from "./store-search-pg-bench.js";
import { storeAppendPostgresBenchmark } from "./store-append-pg-bench.js";
import { scaleOutBenchmark } from "./scale-out-bench.js";
import { throughputBenchmark } from "./throughput-bench.js";
import { burstBenchmark, loopDelayBenchmark } from "./burst-bench.js";
import { footprintBenchmark } from "./footprint-bench.js";
import { promptEconomyBenchmark } from "./prompt-economy-bench.js";
import { QUICK } from "./bench-words.js";

interface Figure {
  name: string;
  value: number;
  unit: string;
  target?: { max?: number; min?: number };
}

const figures: Figure[] = [];

function record(figure: Figure): void {
  figures.push(figure);
  const target = figure.target
    ? figure.target.max !== undefined
      ? ` (target ≤ ${figure.target.max} ${figure.unit})`
      : ` (target ≥ ${figure.target.min} ${figure.unit})`
    : "";
  console.log(`${figure.name.padEnd(58)} ${figure.value.toFixed(figure.value < 10 ? 3 : 1).padStart(12)} ${figure.unit}${target}${missedTarget(figure) ? "  ← MISSED" : ""}`);
}

function missedTarget(figure: Figure): boolean {
  const target = figure.target;
  return target !== undefined && ((target.max !== undefined && !(figure.value <= target.max)) || (target.min !== undefined && !(figure.value >= target.min)));
}

async function timeIt(iterations: number, fn: () => Promise<void> | void): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) await fn();
  return Number(process.hrtime.bigint() - started) / 1e6 / iterations;
}

async function agentLoopOverhead(stateDir: string): Promise<void> {
  const faux = registerFauxProvider({ tokenSize: { min: 64, max: 64 } });
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: "echo",
      description: "echo",
      parameters: Type.Object({ value: Type.Number() }),
      concurrency: "parallel-safe",
      handler: async (args) => ({ content: String(args.value) }),
    }),
  );
  const agent = await HermesAgent.create({ model: { model: faux.getModel(), apiKey: "x" }, tools: registry, builtinTools: false, stateDir });
  const runs = 300;
  const perRun = await timeIt(runs, async () => {
    faux.setResponses([
      fauxAssistantMessage([fauxToolCall("echo", { value: 1 }), fauxToolCall("echo", { value: 2 })], { stopReason: "toolUse" }),
      fauxAssistantMessage([fauxToolCall("echo", { value: 3 })], { stopReason: "toolUse" }),
      fauxAssistantMessage("done"),
    ]);
    const result = await agent.run("go");
    if (result.stopReason !== "completed") throw new Error(`unexpected stop: ${result.stopReason}`);
  });
  record({ name: "agent run, 3 steps / 3 tool calls (faux model)", value: perRun, unit: "ms/run", target: { max: 15 } });
  record({ name: "agent loop overhead per step", value: perRun / 3, unit: "ms/step", target: { max: 5 } });
  faux.unregister();
}

function longTranscript(turns: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < turns; i += 1) {
    messages.push({ role: "user", content: `question ${i}`, timestamp: i });
    messages.push({
      role: "assistant",
      content: [{ type: "toolCall", id: `call_${i % 50}`, name: "lookup", arguments: { q: i } }],
      api: "openai-completions",
      provider: "bench",
      model: "bench",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: i,
    });
    if (i % 7 !== 0) {
      messages.push({ role: "toolResult", toolCallId: `call_${i % 50}`, toolName: "lookup", content: [{ type: "text", text: "x".repeat(200) }], isError: false, timestamp: i });
    }
  }
  return messages;
}

async function historyRepair(): Promise<void> {
  const transcript = longTranscript(3_000);
  const perCall = await timeIt(50, () => {
    repairHistory(transcript);
  });
  record({ name: `history repair, ${transcript.length} messages`, value: perCall, unit: "ms", target: { max: 25 } });
}

async function memoryPerRun(stateDir: string): Promise<void> {
  const faux = registerFauxProvider();
  const agent = await HermesAgent.create({ model: { model: faux.getModel(), apiKey: "x" }, builtinTools: false, stateDir });
  const history = longTranscript(500);
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  // One session id: the faux provider keeps a prompt cache per session, which would be measured instead of our code.
  for (let i = 0; i < 200; i += 1) {
    faux.setResponses([fauxAssistantMessage("ok")]);
    await agent.run("again", { history, sessionId: "bench" });
  }
  globalThis.gc?.();
  const grown = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
  record({ name: "heap growth after 200 runs on a 1,300-message history", value: grown, unit: "MiB", target: { max: 5 } });
  faux.unregister();
}

async function main(): Promise<void> {
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-"));
  try {
    console.log(`Hermes Gateway benchmarks — node ${process.version}, ${os.cpus().length} cpu(s) (${os.cpus()[0]?.model ?? "unknown cpu"})${QUICK ? ", quick mode" : ""}`);
    const groups: Array<[string, () => Promise<void>]> = [
      ["agent", async () => {
        await agentLoopOverhead(stateDir);
        await historyRepair();
        await memoryPerRun(stateDir);
        record(chunkingBenchmark());
      }],
      ["gateway", async () => {
        for (const figure of await gatewayThroughputBenchmark()) record(figure);
      }],
      ["store", async () => {
        for (const figure of await storeAppendBenchmark()) record(figure);
        for (const figure of await sessionSearchBenchmark()) record(figure);
      }],
      ["postgres", async () => {
        for (const figure of await storeAppendPostgresBenchmark()) record(figure);
        for (const figure of await postgresSessionSearchBenchmark()) record(figure);
        for (const figure of await scaleOutBenchmark()) record(figure);
      }],
      ["throughput", async () => {
        for (const figure of await throughputBenchmark()) record(figure);
      }],
      ["loop", async () => {
        for (const figure of await loopDelayBenchmark()) record(figure);
      }],
      ["burst", async () => {
        for (const figure of await burstBenchmark()) record(figure);
      }],
      ["footprint", async () => {
        for (const figure of await footprintBenchmark()) record(figure);
      }],
      ["prompt", async () => {
        for (const figure of await promptEconomyBenchmark()) record(figure);
      }],
      ["startup", async () => {
        for (const figure of await startupBenchmark()) record(figure);
        for (const figure of await cliHelpBenchmark()) record(figure);
      }],
    ];
    // BENCH_ONLY=store,burst runs only those groups (names as above).
    const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim()).filter(Boolean);
    for (const [name, run] of groups) if (!only || only.includes(name)) await run();
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
  const missed = figures.filter(missedTarget);
  console.log(missed.length === 0 ? "all targets met" : `targets missed: ${missed.map((f) => f.name).join("; ")}`);
}

await main();
