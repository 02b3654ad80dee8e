import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startDiscordFake, type DiscordFake } from "./index.js";
import { pingsOf } from "./pings.js";

type Frame = { op: number; t?: string | null; s?: number | null; d?: unknown };

let fake: DiscordFake;
const clients: WebSocket[] = [];

beforeEach(async () => {
  fake = await startDiscordFake();
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await fake.close();
});

/** A bare gateway client that collects frames, for checking the protocol without discord.js. */
async function connect(): Promise<{ socket: WebSocket; frames: Frame[]; next: (match: (f: Frame) => boolean) => Promise<Frame>; closed: Promise<number> }> {
  const socket = new WebSocket(`${fake.wsUrl}/?v=10&encoding=json`);
  clients.push(socket);
  const frames: Frame[] = [];
  const listeners = new Set<() => void>();
  socket.on("message", (raw) => {
    frames.push(JSON.parse(raw.toString()) as Frame);
    for (const listener of [...listeners]) listener();
  });
  const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
  const next = (match: (f: Frame) => boolean): Promise<Frame> =>
    new Promise((resolve) => {
      const check = (): void => {
        const found = frames.find(match);
        if (!found) return;
        listeners.delete(check);
        resolve(found);
      };
      listeners.add(check);
      check();
    });
  await new Promise<void>((resolve) => socket.once("open", () => resolve()));
  return { socket, frames, next, closed };
}

const identify = (token: string, intents: number): string => JSON.stringify({ op: 2, d: { token, intents, properties: {}, shard: [0, 1] } });
const dispatch = (t: string) => (f: Frame): boolean => f.op === 0 && f.t === t;

describe("discord fake gateway", () => {
  it("says HELLO, answers IDENTIFY with READY and the guilds, and acknowledges heartbeats", async () => {
    const guild = fake.addGuild({ name: "Lab", channels: ["general"], botRoles: ["Hermes"] });
    const client = await connect();
    const hello = await client.next((f) => f.op === 10);
    expect(hello.d).toMatchObject({ heartbeat_interval: expect.any(Number) });
    client.socket.send(identify(fake.token, 1 | 512 | 4096 | 32768));
    const ready = await client.next(dispatch("READY"));
    expect(ready.d).toMatchObject({ user: { id: fake.bot.id, bot: true }, guilds: [{ id: guild.id, unavailable: true }], resume_gateway_url: fake.wsUrl });
    const created = await client.next(dispatch("GUILD_CREATE"));
    expect(created.d).toMatchObject({ id: guild.id, channels: [{ id: guild.channels.general, type: 0 }], members: [{ roles: [guild.roles.Hermes] }] });
    client.socket.send(JSON.stringify({ op: 1, d: 2 }));
    await client.next((f) => f.op === 11);
    expect(fake.gateway).toMatchObject({ identifies: 1, heartbeats: 1, intents: 1 | 512 | 4096 | 32768 });
  });

  it("closes with 4004 on a wrong token", async () => {
    const client = await connect();
    client.socket.send(identify("wrong", 1));
    expect(await client.closed).toBe(4004);
  });

  it("hides guild message content without the Message Content intent unless the bot is mentioned", async () => {
    const guild = fake.addGuild({ name: "Lab", channels: ["general"] });
    const ada = fake.addUser("ada");
    const client = await connect();
    client.socket.send(identify(fake.token, 1 | 512));
    await client.next(dispatch("GUILD_CREATE"));
    fake.postMessage(guild.channels.general ?? "", ada, "secret plans");
    fake.postMessage(guild.channels.general ?? "", ada, `${fake.mention(fake.bot)} hi`);
    fake.postDm(ada, "a DM");
    await client.next((f) => f.t === "MESSAGE_CREATE" && (f.d as { content: string }).content.endsWith("hi"));
    const contents = client.frames.filter(dispatch("MESSAGE_CREATE")).map((f) => (f.d as { content: string }).content);
    expect(contents).toEqual(["", `<@${fake.bot.id}> hi`]);
  });

  it("replays what a resuming client missed, then says RESUMED; refuses a resume when told to", async () => {
    const ada = fake.addUser("ada");
    const first = await connect();
    first.socket.send(identify(fake.token, 4096));
    const ready = await first.next(dispatch("READY"));
    const sessionId = (ready.d as { session_id: string }).session_id;
    fake.dropConnection({ code: 4000 });
    expect(await first.closed).toBe(4000);
    const missed = fake.postDm(ada, "while you were away");

    const second = await connect();
    second.socket.send(JSON.stringify({ op: 6, d: { token: fake.token, session_id: sessionId, seq: ready.s } }));
    await second.next(dispatch("RESUMED"));
    expect(second.frames.filter(dispatch("MESSAGE_CREATE")).map((f) => (f.d as { id: string }).id)).toEqual([missed.id]);

    fake.refuseNextResume();
    fake.dropConnection();
    const third = await connect();
    third.socket.send(JSON.stringify({ op: 6, d: { token: fake.token, session_id: sessionId, seq: 0 } }));
    expect(await third.next((f) => f.op === 9)).toMatchObject({ d: false });
  });

  it("drops every connection with the code asked for, and refuses logins until told otherwise", async () => {
    const identified = await connect();
    identified.socket.send(identify(fake.token, 4096));
    await identified.next(dispatch("READY"));
    const stillGreeting = await connect();
    fake.dropConnections(4014);
    expect(await Promise.all([identified.closed, stillGreeting.closed])).toEqual([4014, 4014]);

    fake.refuseLogins();
    const refused = await connect();
    refused.socket.send(identify(fake.token, 4096));
    expect(await refused.closed).toBe(4004);
    fake.acceptLogins();
    const accepted = await connect();
    accepted.socket.send(identify(fake.token, 4096));
    await accepted.next(dispatch("READY"));
    fake.dropConnections(1006);
    expect(await accepted.closed).toBe(1006);
    expect(fake.gateway).toMatchObject({ identifies: 2, refusedLogins: 1 });
  });
});

describe("discord fake REST", () => {
  const auth = (): Record<string, string> => ({ authorization: `Bot ${fake.token}`, "content-type": "application/json" });

  it("answers gateway discovery, rejects a wrong token and reports unknown routes", async () => {
    const bot = await fetch(`${fake.apiUrl}/v10/gateway/bot`, { headers: auth() });
    expect(await bot.json()).toMatchObject({ url: fake.wsUrl, shards: 1 });
    expect((await fetch(`${fake.apiUrl}/v10/gateway/bot`, { headers: { authorization: "Bot nope" } })).status).toBe(401);
    const originalError = console.error;
    console.error = () => undefined;
    try {
      expect((await fetch(`${fake.apiUrl}/v10/applications/1/commands`, { headers: auth() })).status).toBe(404);
    } finally {
      console.error = originalError;
    }
    expect(fake.unknownRoutes).toEqual(["GET /api/v10/applications/1/commands"]);
  });

  it("fails gateway discovery until restored, counting every attempt", async () => {
    fake.failGatewayDiscovery();
    expect((await fetch(`${fake.apiUrl}/v10/gateway/bot`, { headers: auth() })).status).toBe(401);
    fake.failGatewayDiscovery(503);
    expect((await fetch(`${fake.apiUrl}/v10/gateway/bot`, { headers: auth() })).status).toBe(503);
    fake.restoreGatewayDiscovery();
    expect((await fetch(`${fake.apiUrl}/v10/gateway/bot`, { headers: auth() })).status).toBe(200);
    expect(fake.discoveries).toBe(3);
  });

  it("records sent messages, enforces the 2,000-character limit and serves attachments", async () => {
    const ada = fake.addUser("ada");
    const dm = fake.postDm(ada, "file", { attachments: [{ name: "a.txt", data: "contents", contentType: "text/plain" }] });
    const tooLong = await fetch(`${fake.apiUrl}/v10/channels/${dm.channelId}/messages`, { method: "POST", headers: auth(), body: JSON.stringify({ content: "x".repeat(2001) }) });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ code: 50035 });
    const ok = await fetch(`${fake.apiUrl}/v10/channels/${dm.channelId}/messages`, {
      method: "POST",
      headers: auth(),
      body: JSON.stringify({ content: "hi @everyone", message_reference: { message_id: dm.id } }),
    });
    expect(ok.status).toBe(200);
    expect(fake.sent).toEqual([expect.objectContaining({ channelId: dm.channelId, content: "hi @everyone", replyTo: dm.id, pings: { everyone: true, users: [], roles: [], repliedUser: true } })]);
    const url = ((dm.payload.attachments as { url: string }[])[0] ?? { url: "" }).url;
    expect(await (await fetch(url)).text()).toBe("contents");
  });

  it("returns the first message for a repeated enforced nonce in the same channel, and only then", async () => {
    const ada = fake.addUser("ada");
    const dm = fake.dmChannelId(ada);
    const general = fake.addGuild({ name: "Lab", channels: ["general"] }).channels.general ?? "";
    const send = async (channelId: string, body: Record<string, unknown>): Promise<string> => {
      const response = await fetch(`${fake.apiUrl}/v10/channels/${channelId}/messages`, { method: "POST", headers: auth(), body: JSON.stringify(body) });
      return ((await response.json()) as { id: string }).id;
    };
    const first = await send(dm, { content: "hi", nonce: "n1", enforce_nonce: true });
    expect(await send(dm, { content: "hi", nonce: "n1", enforce_nonce: true })).toBe(first);
    const elsewhere = await send(general, { content: "hi", nonce: "n1", enforce_nonce: true });
    const unenforced = await send(dm, { content: "hi", nonce: "n1" });
    expect(new Set([first, elsewhere, unenforced]).size).toBe(3);
    expect(fake.sent.map((m) => m.id)).toEqual([first, elsewhere, unenforced]);
    expect(fake.nonceReplays).toEqual([first]);
  });
});

describe("discord fake edits and button presses", () => {
  const auth = (): Record<string, string> => ({ authorization: `Bot ${fake.token}`, "content-type": "application/json" });
  const row = { type: 1, components: [{ type: 2, custom_id: "/deny abc", label: "Deny", style: 4 }] };

  it("edits only the bot's own messages, keeping fields left out and the history of edits", async () => {
    const ada = fake.addUser("ada");
    const theirs = fake.postDm(ada, "hello");
    const created = await fetch(`${fake.apiUrl}/v10/channels/${theirs.channelId}/messages`, { method: "POST", headers: auth(), body: JSON.stringify({ content: "sure?", components: [row] }) });
    const id = ((await created.json()) as { id: string }).id;
    const patch = (messageId: string, body: Record<string, unknown>): Promise<Response> =>
      fetch(`${fake.apiUrl}/v10/channels/${theirs.channelId}/messages/${messageId}`, { method: "PATCH", headers: auth(), body: JSON.stringify(body) });

    expect((await patch(id, { content: "sure? yes" })).status).toBe(200);
    expect(fake.sent[0]).toMatchObject({ content: "sure? yes", components: [row] });
    expect((await patch(id, { components: [] })).status).toBe(200);
    expect(fake.sent[0]).toMatchObject({ content: "sure? yes", components: [] });
    expect(fake.sent[0]?.edits.map((e) => e.content)).toEqual(["sure? yes", "sure? yes"]);
    expect(await (await patch(theirs.id, { content: "hacked" })).json()).toMatchObject({ code: 50005 });
    expect(await (await patch("1000000000000000000", { content: "x" })).json()).toMatchObject({ code: 10008 });
    fake.failNextEdit({ kind: "status", status: 503 });
    expect((await patch(id, { content: "later" })).status).toBe(503);
  });

  it("presses only buttons the message has, recording the press as an interaction", async () => {
    const ada = fake.addUser("ada");
    const channel = fake.dmChannelId(ada);
    const created = await fetch(`${fake.apiUrl}/v10/channels/${channel}/messages`, { method: "POST", headers: auth(), body: JSON.stringify({ content: "sure?", components: [row] }) });
    const id = ((await created.json()) as { id: string }).id;

    const press = fake.pressButton(ada, id, "/deny abc");
    expect(press).toMatchObject({ channelId: channel, name: "/deny abc", messageId: id, callbacks: [] });
    const ack = await fetch(`${fake.apiUrl}/v10/interactions/${press.id}/${press.token}/callback`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: 6 }) });
    expect(ack.status).toBe(204);
    expect(press.callbacks).toEqual([{ type: 6, flags: 0 }]);
    expect(() => fake.pressButton(ada, id, "/approve abc")).toThrow(/has no button \/approve abc/);
  });
});

describe("pingsOf", () => {
  it("follows allowed_mentions", () => {
    const content = "@here <@1> <@&2>";
    expect(pingsOf(content, undefined, true)).toEqual({ everyone: true, users: ["1"], roles: ["2"], repliedUser: true });
    expect(pingsOf(content, { parse: [] }, true)).toEqual({ everyone: false, users: [], roles: [], repliedUser: false });
    expect(pingsOf(content, { parse: ["users"], roles: ["2"], replied_user: true }, true)).toEqual({ everyone: false, users: ["1"], roles: ["2"], repliedUser: true });
  });
});
