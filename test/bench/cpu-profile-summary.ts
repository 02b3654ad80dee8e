/** Self time of a V8 .cpuprofile grouped by what it is spent on, for profile-inline.ts and profile-bullmq.ts. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

type CallFrame = ProfileNode["callFrame"];

/** A kind a profile adds to the common ones: frames whose URL matches are counted under `kind`. */
export interface ExtraKind {
  url: RegExp;
  kind: string;
}

export interface ProfileSummary {
  busyUs: number;
  byKind: Map<string, number>;
  byFunction: Map<string, number>;
}

const NATIVE_SQLITE = new Set(["run", "get", "all", "prepare", "exec", "iterate", "pragma"]);
const NATIVE_WRITE = new Set(["writev", "writeUtf8String", "writeBuffer"]);
const NATIVE_FS = new Set(["lstat", "stat", "fstat", "open", "openFileHandle", "read", "close", "readFileUtf8", "internalModuleStat"]);

function kindOf(frame: CallFrame, extraKinds: readonly ExtraKind[]): string {
  const { url, functionName: name } = frame;
  if (name === "(garbage collector)") return "garbage collection";
  // The inspector session that takes the profile (cpu-profile-probe.mjs), not the measured process's work.
  if (name === "dispatch" && url === "") return "the profiler itself (inspector dispatch)";
  if (/packages\/store|kysely|better-sqlite3/.test(url) || (url === "" && NATIVE_SQLITE.has(name))) return "SQLite and Kysely (the store)";
  const extra = extraKinds.find((candidate) => candidate.url.test(url));
  if (extra) return extra.kind;
  if (/pino|\/logging\//.test(url)) return "logging (pino)";
  // writev is mostly HTTP sockets (the model request, grammY), with the log line's stderr write among them.
  if (url === "" && NATIVE_WRITE.has(name)) return "socket and stderr writes (writev)";
  if (/openai|pi-ai|undici|webstreams/.test(url)) return "model HTTP client (openai SDK, undici, web streams)";
  if (/grammy|packages\/telegram|node-fetch|abort-controller/.test(url)) return "Telegram client (grammY, node-fetch)";
  if (/packages\/agent/.test(url)) return "agent core";
  if (/\/hooks\//.test(url)) return "hooks";
  if (/packages\/gateway/.test(url)) return "gateway";
  if (url === "" && NATIVE_FS.has(name)) return "file-system calls";
  if (url.startsWith("node:")) return "Node internals (promises, events, timers, net, http)";
  return `other: ${name || "(anonymous)"}`;
}

function where(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, "").replace(/.*node_modules\//, "").replace(/.*\/(packages|apps|hooks)\//, "$1/");
  return `${frame.functionName || "(anonymous)"} ${file}${file ? `:${frame.lineNumber + 1}` : ""}`;
}

/** Busy (not idle) self time, by kind and by function. */
export function summariseProfile(profile: CpuProfile, extraKinds: readonly ExtraKind[] = []): ProfileSummary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const summary: ProfileSummary = { busyUs: 0, byKind: new Map(), byFunction: new Map() };
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    const us = profile.timeDeltas[index] ?? 0;
    if (!frame || frame.functionName === "(idle)") return;
    summary.busyUs += us;
    const kind = kindOf(frame, extraKinds);
    summary.byKind.set(kind, (summary.byKind.get(kind) ?? 0) + us);
    const place = where(frame);
    summary.byFunction.set(place, (summary.byFunction.get(place) ?? 0) + us);
  });
  return summary;
}

/** The two tables, each line a share of the busy time and milliseconds per message. */
export function printProfileSummary(summary: ProfileSummary, messages: number, kindLimit: number): void {
  print("self time by kind", summary.byKind, summary.busyUs, messages, kindLimit);
  print("self time by function", summary.byFunction, summary.busyUs, messages, 25);
}

function print(title: string, totals: Map<string, number>, busyUs: number, messages: number, limit: number): void {
  console.log(`\n${title}`);
  for (const [name, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(`${((100 * us) / busyUs).toFixed(1).padStart(5)} %  ${(us / 1000 / messages).toFixed(2).padStart(6)} ms/message  ${name}`);
  }
}
