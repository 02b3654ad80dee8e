import { afterEach, describe, expect, it } from "vitest";
import type { Json } from "../fakes/discord/payloads.js";
import { lastUserText, startDiscordStand, watchProcessFailures, type DiscordStand } from "./platform-stands.js";

let stand: DiscordStand | undefined;
let watcher: ReturnType<typeof watchProcessFailures> | undefined;

afterEach(async () => {
  await stand?.close();
  watcher?.stop();
  const failures = watcher?.failures ?? [];
  stand = undefined;
  watcher = undefined;
  expect(failures).toEqual([]);
});

async function start(options: { maxAttachmentBytes?: number } = {}): Promise<DiscordStand> {
  watcher = watchProcessFailures();
  stand = await startDiscordStand(options);
  return stand;
}

const dmKey = (s: DiscordStand): string => `agent:main:discord:dm:${s.fake.dmChannelId(s.ada)}`;

/** A normal DM after the junk is answered, and only that: nothing got stuck and the junk left nothing in the chat. */
async function expectNextAnswered(s: DiscordStand, text: string, sentBefore: number): Promise<void> {
  s.h.llm.enqueue({ kind: "text", text: `answer: ${text}` });
  s.fake.postDm(s.ada, text);
  const sent = await s.fake.waitForSent(sentBefore + 1);
  await s.h.gateway.waitIdle(dmKey(s));
  expect(sent.slice(sentBefore).map((m) => m.content)).toEqual([`answer: ${text}`]);
}

let counter = 0;
/** A DM's MESSAGE_CREATE as Discord sends it, from Ada, with the fields given replacing (or, when undefined, removing) its own. */
function dmPayload(s: DiscordStand, fields: Json): Json {
  counter += 1;
  const base: Json = {
    id: String(9_000_000_000_000_000n + BigInt(counter)),
    type: 0,
    channel_id: s.fake.dmChannelId(s.ada),
    channel_type: 1,
    author: { id: s.ada.id, username: "ada", discriminator: "0", global_name: "Ada", avatar: null },
    content: "hello",
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    components: [],
    pinned: false,
    flags: 0,
  };
  const merged: Json = { ...base, ...fields };
  for (const [key, value] of Object.entries(fields)) if (value === undefined) delete merged[key];
  return merged;
}

describe("hostile Discord input (discord.js against the stand-in, real gateway)", () => {
  it("ignores junk dispatches (no author, null author, no content, unknown channel, unknown types) and answers the next message", async () => {
    const s = await start();
    const junk: Array<[string, Json]> = [
      ["MESSAGE_CREATE", dmPayload(s, { author: undefined })],
      ["MESSAGE_CREATE", dmPayload(s, { author: null })],
      ["MESSAGE_CREATE", dmPayload(s, { content: undefined })],
      ["MESSAGE_CREATE", dmPayload(s, { content: null })],
      ["MESSAGE_CREATE", dmPayload(s, { content: "   " })],
      ["MESSAGE_CREATE", dmPayload(s, { channel_id: undefined })],
      ["MESSAGE_CREATE", dmPayload(s, { channel_id: "1", channel_type: 0, guild_id: "2" })],
      ["MESSAGE_CREATE", dmPayload(s, { type: 9_999 })],
      ["MESSAGE_CREATE", dmPayload(s, { id: undefined })],
      ["MESSAGE_CREATE", {}],
      ["SOMETHING_FROM_THE_FUTURE", { id: "1", anything: [1, 2, 3] }],
      ["MESSAGE_REACTION_ADD", { user_id: null, channel_id: null, message_id: null, emoji: null }],
    ];
    for (const [event, data] of junk) s.fake.dispatch(event, data);
    await expectNextAnswered(s, "still there?", 0);
    const said = (message: string) => s.logger.entries.filter((e) => e.message === message).length;
    expect(said("a Discord gateway event could not be read; dropped")).toBeGreaterThanOrEqual(1);
    expect(said("the gateway could not save a Discord message; retrying")).toBe(0);
    expect(s.h.llm.requests).toHaveLength(1);
  });

  it("answers lone surrogates, RTL overrides, mentions of unknown ids and a malformed mentions list", async () => {
    const s = await start();
    s.h.llm.enqueue({ kind: "text", text: "answer one" });
    const content = `q1 lone \uD800 and \uDFFF, \u202Eevil.exe, <@123456789012345678> <@&999> <#42> <@!> <@${"9".repeat(40)}>`;
    s.fake.dispatch(
      "MESSAGE_CREATE",
      dmPayload(s, {
        content,
        author: { id: s.ada.id, username: "\u202Eada", discriminator: "0", global_name: "\uD83D\u202E", avatar: null },
        mentions: [{ id: "123456789012345678", username: "ghost", discriminator: "0", avatar: null }],
        mention_roles: ["999", "not-a-snowflake"],
      }),
    );
    await s.fake.waitForSent(1);
    await s.h.gateway.waitIdle(dmKey(s));
    expect(lastUserText(s.h.llm.requests[0])).toContain("\u202Eevil.exe");
    expect(s.fake.sent.map((m) => m.content)).toEqual(["answer one"]);
    await expectNextAnswered(s, "plain again", 1);
  });

  it("hands a 100,000-character message to the model and delivers a long answer in parts", async () => {
    const s = await start();
    const long = `q-long ${"z".repeat(99_990)} end`;
    const answer = Array.from({ length: 120 }, (_, i) => `Line ${i} of a long Discord answer, in parts.`).join("\n");
    s.h.llm.enqueue({ kind: "text", text: answer });
    s.fake.dispatch("MESSAGE_CREATE", dmPayload(s, { content: long }));
    await s.fake.waitFor(() => s.fake.sent.some((m) => m.content.includes("Line 119 of")), "the last part of the long answer");
    await s.h.gateway.waitIdle(dmKey(s));
    expect(lastUserText(s.h.llm.requests[0])).toContain(long);
    expect(s.fake.sent.length).toBeGreaterThan(1);
    for (const part of s.fake.sent) expect(part.content.length).toBeLessThanOrEqual(2_000);
    await expectNextAnswered(s, "short one", s.fake.sent.length);
  });

  it("refuses attachments with absurd, negative or nonsense sizes and broken URLs with a note", async () => {
    const s = await start({ maxAttachmentBytes: 1024 });
    s.h.llm.enqueue({ kind: "text", text: "about your files" });
    const url = (name: string): string => `${s.fake.apiUrl.replace(/\/api$/, "")}/attachments/none/${name}`;
    s.fake.dispatch(
      "MESSAGE_CREATE",
      dmPayload(s, {
        content: "q-files",
        attachments: [
          { id: "1", filename: "galaxy.bin", size: 9e18, url: url("galaxy.bin"), proxy_url: url("galaxy.bin") },
          { id: "2", filename: "minus.bin", size: -5, url: url("minus.bin"), proxy_url: url("minus.bin") },
          { id: "3", filename: "odd.bin", size: "a lot", url: "not a url", proxy_url: "not a url" },
          { id: "4", filename: "nowhere.bin", size: 10 },
        ],
      }),
    );
    await s.fake.waitForSent(1);
    await s.h.gateway.waitIdle(dmKey(s));
    const seen = lastUserText(s.h.llm.requests[0]);
    expect(seen).toContain("galaxy.bin");
    expect(seen).toContain("was not downloaded");
    expect(s.fake.sent.map((m) => m.content)).toEqual(["about your files"]);
    await expectNextAnswered(s, "after the files", 1);
  });
});
