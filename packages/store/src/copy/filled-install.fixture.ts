import type { AssistantMessage, Message } from "@mariozechner/pi-ai";
import BetterSqlite3 from "better-sqlite3";
import { openStore } from "../open-store.js";
import type { Store } from "../store.js";
import { utcDayOf } from "../usage.js";

/** The clock of every row the fixture writes. */
export const FILLED_AT = Date.UTC(2026, 0, 15, 12, 0, 0);

export interface FilledInstall {
  /** A session that was compacted: ended, with `childSessionId` continuing it. */
  parentSessionId: string;
  childSessionId: string;
  /** A Discord group session holding a message whose search text has a NUL character. */
  groupSessionId: string;
  /** An inbound still running, with a tool checkpoint and a saved step. */
  runningInboundId: number;
  answeredInboundId: number;
}

function assistant(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "openai",
    model: "test-model",
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: FILLED_AT,
  };
}

/** An approval granted for the whole group conversation. */
const APPROVED_FOR_SESSION = {
  id: "appr0002",
  platform: "discord",
  chatId: "chan-1",
  requesterId: "7",
  tool: "web_fetch",
  summary: "https://example.org",
  createdAt: FILLED_AT,
  expiresAt: FILLED_AT + 300_000,
} as const;

function user(text: string): Message {
  return { role: "user", content: text, timestamp: FILLED_AT };
}

/**
 * A SQLite install with a row in every table of the shared schema, written through the repositories as the gateway
 * and workers write them, plus what an older version may have left: NUL characters in stored text.
 */
export async function fillSqliteInstall(file: string): Promise<FilledInstall> {
  const store = await openStore({ file, now: () => FILLED_AT });
  try {
    return await fill(store, file);
  } finally {
    await store.close();
  }
}

async function fill(store: Store, file: string): Promise<FilledInstall> {
  const { session: parent } = await store.sessions.getOrCreateActive({
    key: "agent:main:telegram:dm:42",
    platform: "telegram",
    chatId: "42",
    chatType: "dm",
    userId: "42",
    title: "Trip planning",
  });
  await store.messages.append(parent.id, [user("Plan my trip to Lisbon"), assistant("Ride tram 28 and try pastel de nata")]);
  await store.sessions.setModel(parent.id, "anthropic/claude-sonnet-4-5");
  const { record: answered } = await store.inbound.recordIfNew({
    platform: "telegram",
    messageId: "1001",
    payload: JSON.stringify({ text: "What about Porto?" }),
    sessionKey: parent.key,
    status: "queued",
    traceContext: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "vendor=1" },
  });
  const completed = await store.completeRun({
    inboundId: answered.id,
    sessionId: parent.id,
    messages: [user("Plan my trip to Lisbon"), user("What about Porto?"), assistant("Port wine cellars in Gaia")],
    usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 400, cacheWriteTokens: 20, costUsd: 0.0125 },
    usageOwner: { platform: "telegram", userId: "42" },
    deliveries: [{ platform: "telegram", chatId: "42", text: "Port wine cellars in Gaia", kind: "reply", sessionKey: parent.key, replyToMessageId: "1001" }],
    compacted: true,
  });
  if (!completed.ok) throw new Error(`completeRun failed: ${completed.reason}`);

  const { session: group } = await store.sessions.getOrCreateActive({
    key: "agent:main:discord:group:chan-1:7",
    platform: "discord",
    chatId: "chan-1",
    chatType: "group",
    threadId: "thread-9",
    userId: "7",
  });
  await store.sessions.setTitle(group.id, "Recipes\u0000draft");
  await store.messages.append(group.id, [user("tomatoes\u0000fence soup"), assistant("Gazpacho needs ripe tomatoes")]);
  await store.usage.add(group.id, { inputTokens: 50, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001 });

  const { record: running } = await store.inbound.recordIfNew({ platform: "discord", messageId: "m-77", payload: "{}", sessionKey: group.key, status: "running" });
  await store.toolCheckpoints.record({
    inboundId: running.id,
    step: 1,
    position: 0,
    toolCallId: "call-1",
    toolName: "web_fetch",
    argumentsHash: "5f2b",
    status: "ok",
    result: { content: "a page about soup", details: { bytes: 17 } },
    durationMs: 12,
  });
  await store.toolCheckpoints.recordStep({ inboundId: running.id, step: 1, message: assistant("Let me look that up") });
  await store.streamParts.record(running.id, 0, "discord-msg-1");
  await store.streamParts.record(running.id, 1, "discord-msg-2");
  await store.approvals.create({
    id: "appr0001",
    inboundId: running.id,
    sessionKey: group.key,
    sessionId: group.id,
    platform: "discord",
    chatId: "chan-1",
    threadId: "thread-9",
    requesterId: "7",
    tool: "terminal",
    summary: "rm -rf build/",
    createdAt: FILLED_AT,
    expiresAt: FILLED_AT + 300_000,
  });
  await store.approvals.create({ ...APPROVED_FOR_SESSION, inboundId: running.id, sessionKey: group.key, sessionId: group.id });
  await store.approvals.decide(APPROVED_FOR_SESSION.id, { status: "approved", scope: "session", decidedBy: "7", decidedAt: FILLED_AT + 1_000 });
  await store.deliveries.enqueue({
    platform: "discord",
    chatId: "chan-1",
    threadId: "thread-9",
    text: "Run terminal: rm -rf build/?",
    kind: "notice",
    buttons: [
      { label: "Approve", value: "/approve appr0001", style: "primary" },
      { label: "Approve for this conversation", value: "/approve appr0001 always" },
      { label: "Deny", value: "/deny appr0001", style: "danger" },
    ],
  });
  const notice = await store.deliveries.enqueue({ platform: "slack", chatId: "C1", threadId: "171.5", text: "Your pairing code is ready", kind: "notice" });
  await store.deliveries.recordFailure(notice.id, "nobody", "rate limited", { final: false, retryAt: FILLED_AT + 60_000 });

  await store.pairing.createRequest({
    platform: "telegram",
    userId: "99",
    userName: "Stranger",
    chatId: "99",
    codeHash: "ab12",
    salt: "cd34",
    createdAt: FILLED_AT,
    expiresAt: FILLED_AT + 3_600_000,
  });
  await store.pairing.approve({ platform: "discord", userId: "7", userName: "Cook" }, FILLED_AT);
  await store.pairing.recordFailure("telegram", FILLED_AT);
  await store.chatSettings.set("discord", "chan-1", { mentionMode: "all" });
  await store.sharedFiles.put("skills/soup/SKILL.md", Buffer.from("# Soup\n"));
  await store.sharedFiles.put("attachments/discord/photo.bin", Uint8Array.from([0, 255, 16, 0]), { sessionKey: group.key });
  await store.sharedFiles.remove("skills/soup/SKILL.md");
  const memory = await store.memoryDocuments.write("users/telegram/42/MEMORY.md", "§ Likes trams\n", undefined);
  if (memory.ok) await store.memoryDocuments.write("users/telegram/42/MEMORY.md", "§ Likes trams\n§ Vegetarian\n", memory.version);

  await store.cronJobs.create({
    id: "cron0001",
    platform: "discord",
    chatId: "chan-1",
    chatType: "group",
    threadId: "thread-9",
    creatorId: "7",
    sessionKey: group.key,
    schedule: "0 9 * * 1",
    kind: "cron",
    prompt: "Plan this week's soups",
    nextRunAt: FILLED_AT + 3_600_000,
    createdAt: FILLED_AT,
  });
  await store.cronJobs.advance("cron0001", FILLED_AT + 3_600_000, { nextRunAt: FILLED_AT + 7_200_000, lastRunAt: FILLED_AT + 3_600_000, lastStatus: "ran" });
  await store.subagentRuns.record({
    id: "sub-1",
    parentSessionId: group.id,
    parentToolCallId: "call-1",
    goal: "Find a gazpacho recipe",
    status: "done",
    summary: "Blend tomatoes, cucumber and bread",
    steps: 3,
    inputTokens: 900,
    outputTokens: 120,
    costUsd: 0.002,
    startedAt: FILLED_AT,
    endedAt: FILLED_AT + 20_000,
  });

  // An older version stored search text as it came; PostgreSQL's text refuses the NUL the copy must take out.
  const sqlite = new BetterSqlite3(file);
  try {
    sqlite.prepare(`UPDATE messages SET text = 'tomatoes' || char(0) || 'fence soup' WHERE session_id = ? AND seq = 0`).run(group.id);
  } finally {
    sqlite.close();
  }
  return { parentSessionId: parent.id, childSessionId: completed.sessionId, groupSessionId: group.id, runningInboundId: running.id, answeredInboundId: answered.id };
}

/** What the product reads from a store about the filled install: equal on both sides after a copy. */
export async function readFilledInstall(store: Store, filled: FilledInstall): Promise<unknown> {
  const sessionIds = [filled.parentSessionId, filled.childSessionId, filled.groupSessionId];
  return {
    sessions: await Promise.all(sessionIds.map((id) => store.sessions.get(id))),
    transcripts: await Promise.all(sessionIds.map((id) => store.messages.list(id))),
    history: await store.messages.history(filled.childSessionId),
    usage: await Promise.all(sessionIds.map((id) => store.usage.forSession(id))),
    userUsage: await store.usage.forUser("telegram", "42"),
    dailyUsage: await store.usage.forUserOnDay({ platform: "telegram", userId: "42" }, utcDayOf(FILLED_AT)),
    inbound: await Promise.all([filled.answeredInboundId, filled.runningInboundId].map((id) => store.inbound.get(id))),
    unfinished: await store.inbound.unfinished(10),
    deliveries: await store.deliveries.pending(10),
    checkpoints: await store.toolCheckpoints.forRun(filled.runningInboundId),
    steps: await store.toolCheckpoints.stepsForRun(filled.runningInboundId),
    pairingRequests: await store.pairing.pendingRequests("telegram", FILLED_AT),
    approved: await store.pairing.listApproved(),
    pairingFailures: await store.pairing.failuresSince("telegram", FILLED_AT - 1),
    chatSettings: await store.chatSettings.get("discord", "chan-1"),
    sharedFiles: await store.sharedFiles.changedSince(0, ["skills/", "attachments/"]),
    streamParts: await store.streamParts.list(filled.runningInboundId),
    approvals: await Promise.all(["appr0001", APPROVED_FOR_SESSION.id].map((id) => store.approvals.get(id))),
    pendingApproval: await store.approvals.latestPending("agent:main:discord:group:chan-1:7", FILLED_AT),
    granted: await store.approvals.grantedForSession(filled.groupSessionId, "web_fetch", APPROVED_FOR_SESSION.requesterId),
    cronJobs: await store.cronJobs.listAll(),
    dueCronJobs: await store.cronJobs.due(FILLED_AT + 7_200_000, 10),
    subagentRuns: await store.subagentRuns.listForSession(filled.groupSessionId),
    memory: await Promise.all((await store.memoryDocuments.list("")).map(async (key) => ({ key, document: await store.memoryDocuments.read(key) }))),
  };
}
