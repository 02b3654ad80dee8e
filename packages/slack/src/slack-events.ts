/** The parts of Slack's message and app_mention events the adapter uses, read from untrusted JSON. */

export interface SlackFile {
  id: string;
  name?: string;
  mimetype?: string;
  size?: number;
  /** Where the file can be downloaded with the bot token. */
  url?: string;
  /** "hosted", "snippet", "external", "tombstone" (deleted), … */
  mode?: string;
}

export interface SlackMessageEvent {
  type: "message" | "app_mention";
  subtype?: string;
  channel: string;
  /** "im", "mpim", "channel" or "group" on message events; absent on app_mention. */
  channelType?: string;
  user?: string;
  botId?: string;
  text: string;
  ts: string;
  threadTs?: string;
  /** Author of the thread's parent message, on replies. */
  parentUserId?: string;
  hidden: boolean;
  files: SlackFile[];
}

type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(record: Json, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** Reads a message/app_mention event; undefined for anything else or a payload without channel and ts. */
export function readMessageEvent(value: unknown): SlackMessageEvent | undefined {
  if (!isRecord(value)) return undefined;
  const type = value.type;
  if (type !== "message" && type !== "app_mention") return undefined;
  const channel = text(value, "channel");
  const ts = text(value, "ts");
  if (!channel || !ts) return undefined;
  const files = Array.isArray(value.files) ? value.files.map(readFile).filter((file): file is SlackFile => file !== undefined) : [];
  return {
    type,
    subtype: text(value, "subtype"),
    channel,
    channelType: text(value, "channel_type"),
    user: text(value, "user"),
    botId: text(value, "bot_id"),
    text: typeof value.text === "string" ? value.text : "",
    ts,
    threadTs: text(value, "thread_ts"),
    parentUserId: text(value, "parent_user_id"),
    hidden: value.hidden === true,
    files,
  };
}

function readFile(value: unknown): SlackFile | undefined {
  if (!isRecord(value)) return undefined;
  const id = text(value, "id");
  if (!id) return undefined;
  const size = typeof value.size === "number" && Number.isFinite(value.size) ? value.size : undefined;
  return {
    id,
    name: text(value, "name") ?? text(value, "title"),
    mimetype: text(value, "mimetype"),
    size,
    url: text(value, "url_private_download") ?? text(value, "url_private"),
    mode: text(value, "mode"),
  };
}

/** The event id of an Events API envelope (`event_callback`), when there is one. */
export function envelopeEventId(body: unknown): string | undefined {
  return isRecord(body) ? text(body, "event_id") : undefined;
}
