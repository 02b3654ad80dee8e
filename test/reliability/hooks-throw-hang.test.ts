import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGatewayHarness, type GatewayHarness } from "../support/gateway-harness.js";
import { lastUserText } from "../support/provider-faults.js";
import { recordingLogger, type RecordingLogger } from "../support/recording-logger.js";

const HOOK_TIMEOUT_MS = 300;
const EVENTS = ["message:received", "agent:start", "message:sent"] as const;
const USERS = 2;
const MESSAGES_PER_USER = 3;

let harness: GatewayHarness | undefined;
let home: string | undefined;

afterEach(async () => {
  await harness?.close();
  if (home) await rm(home, { recursive: true, force: true });
  harness = undefined;
  home = undefined;
});

/** An operator hook folder ($HERMES_HOME/hooks/<name>) with an ESM handler whose body is given. */
async function writeHook(hooksDir: string, name: string, body: string, timeoutMs = HOOK_TIMEOUT_MS): Promise<void> {
  const folder = path.join(hooksDir, name);
  await mkdir(folder, { recursive: true });
  const events = EVENTS.map((event) => `  - "${event}"`).join("\n");
  await writeFile(path.join(folder, "HOOK.yaml"), `name: ${name}\ndescription: misbehaves on purpose\nevents:\n${events}\ntimeout_ms: ${timeoutMs}\n`);
  await writeFile(path.join(folder, "handler.mjs"), `export default async (event) => {\n${body}\n};\n`);
}

async function writeHostileHooks(hooksDir: string): Promise<void> {
  await writeHook(hooksDir, "thrower", `throw new Error("thrower broke on " + event.type);`);
  // Not an Error: a string, null, or an object whose accessors throw when the gateway looks at them.
  await writeHook(
    hooksDir,
    "odd-thrower",
    `if (event.type === "message:received") throw "a bare string";
     if (event.type === "agent:start") throw null;
     throw { get message() { throw new Error("trap"); } };`,
  );
  await writeHook(hooksDir, "sleeper", `await new Promise(() => {});`);
  // A module that throws as it is imported never gets to handle anything.
  await writeHook(hooksDir, "broken-module", "");
  await writeFile(path.join(hooksDir, "broken-module", "handler.mjs"), `throw new Error("broken at import");\nexport default async () => {};\n`);
  // What a sloppy hook returns: a block without a reason, a block whose reason is no text, junk values, a thenable
  // that never settles.
  await writeHook(
    hooksDir,
    "junk",
    `if (event.type === "message:received") return event.text.includes("x0") ? { block: true } : { block: true, reason: 42 };
     if (event.type === "agent:start") return Symbol("junk");
     return { then() {} };`,
  );
}

function hookWarnings(logger: RecordingLogger, hook: string, eventType: string): string[] {
  return logger.entries
    .filter((entry) => entry.fields.hook === hook && entry.fields.eventType === eventType && (entry.level === "warn" || entry.level === "error"))
    .map((entry) => entry.message);
}

describe("operator hooks that throw, hang or return garbage", () => {
  it("never cost a reply: every message is answered once, a hanging hook is cut off by its timeout, and the log names each hook", async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-hooks-"));
    await writeHostileHooks(path.join(home, "hooks"));
    const logger = recordingLogger();
    const h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "*" }, home, { logger });
    harness = h;
    h.llm.enqueue(...Array.from({ length: USERS * MESSAGES_PER_USER }, () => (request: Parameters<typeof lastUserText>[0]) => ({
      kind: "text" as const,
      text: `answer:${/u\d+x\d+/.exec(lastUserText(request))?.[0] ?? "none"}`,
    })));

    for (let index = 0; index < MESSAGES_PER_USER; index += 1) {
      await Promise.all(
        Array.from({ length: USERS }, (_, user) =>
          h.adapter.userSays(`question u${user}x${index}`, { chat: { id: `chat${user}`, type: "dm" }, user: { id: `user${user}`, name: `U${user}` }, messageId: `m${user}-${index}` }),
        ),
      );
    }
    for (let user = 0; user < USERS; user += 1) await h.gateway.waitIdle(`agent:main:telegram:dm:chat${user}`);

    for (let user = 0; user < USERS; user += 1) {
      const replies = h.adapter.texts(`chat${user}`).filter((text) => !text.startsWith("Got it. I'm still answering"));
      expect(replies.sort()).toEqual(Array.from({ length: MESSAGES_PER_USER }, (_, index) => `answer:u${user}x${index}`));
    }
    // message:sent is emitted after the send without waiting; its hooks finish (or are cut off) a moment later.
    const everyOneLogged = (): boolean =>
      EVENTS.every((event) => ["thrower", "odd-thrower", "sleeper"].every((hook) => hookWarnings(logger, hook, event).length > 0));
    for (const deadline = Date.now() + 10_000; !everyOneLogged() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));

    for (const event of EVENTS) {
      expect(hookWarnings(logger, "thrower", event)).toContain(`hook "thrower" failed on ${event}: thrower broke on ${event}`);
      expect(hookWarnings(logger, "odd-thrower", event).every((line) => line.startsWith(`hook "odd-thrower" failed on ${event}`))).toBe(true);
      expect(hookWarnings(logger, "odd-thrower", event).length).toBeGreaterThan(0);
      expect(hookWarnings(logger, "sleeper", event)).toContain(`hook "sleeper" timed out on ${event}: did not finish within ${HOOK_TIMEOUT_MS} ms`);
    }
    expect(hookWarnings(logger, "junk", "message:received")).toContain(`hook "junk" returned a block without a reason; ignored`);
    expect(logger.entries.filter((entry) => entry.fields.hook === "broken-module").map((entry) => entry.message)).toEqual([
      expect.stringMatching(/^hook "broken-module" skipped: .*broken at import/),
    ]);
    expect(logger.entries.filter((entry) => entry.message === "hook dispatch failed")).toEqual([]);
  }, 60_000);
});
