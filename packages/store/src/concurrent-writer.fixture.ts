/**
 * A separate process for multi-process.test.ts: opens the store on the given file, waits for "go" on stdin so that
 * both processes start writing together, then creates sessions, records inbound events and completes runs that the
 * other process also attempts. Prints a JSON summary of what it achieved.
 */
import { createInterface } from "node:readline";
import { openStore } from "./open-store.js";
import { assistantMessage, userMessage } from "./test-fixtures.js";

const [file, name, roundsText] = process.argv.slice(2);
if (file === undefined || name === undefined || roundsText === undefined) throw new Error("usage: FILE NAME ROUNDS");
const rounds = Number(roundsText);

const store = await openStore({ file });
process.stdout.write("ready\n");
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once("line", () => resolve()));

let sessionsCreated = 0;
let inboundCreated = 0;
let runsCompleted = 0;
for (let round = 0; round < rounds; round++) {
  const user = `u${round % 5}`;
  const key = `agent:main:telegram:dm:${user}`;
  const { session, created } = await store.sessions.getOrCreateActive({ key, platform: "telegram", chatId: user, chatType: "dm", userId: user });
  if (created) sessionsCreated++;
  const { record, created: recorded } = await store.inbound.recordIfNew({ platform: "telegram", messageId: `m${round}`, payload: "{}", sessionKey: key, status: "running" });
  if (recorded) inboundCreated++;
  const result = await store.completeRun({
    inboundId: record.id,
    sessionId: session.id,
    messages: [userMessage(`question ${round}`), assistantMessage(`answer ${round} from ${name}`)],
    deliveries: [{ platform: "telegram", chatId: user, text: `answer ${round}`, kind: "reply", sessionKey: key }],
  });
  if (result.ok) runsCompleted++;
}
await store.close();
process.stdout.write(`${JSON.stringify({ sessionsCreated, inboundCreated, runsCompleted })}\n`);
