/** One earlier turn of a request's conversation, as the API caller sent it. */
export interface ChatTurn {
  role: "system" | "user" | "assistant";
  text: string;
}

/** A `POST /v1/chat/completions` body the gateway can answer. */
export interface ChatRequest {
  /** As asked for; every name maps to the agent, and answers echo it. */
  model: string;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk carries the usage. */
  includeUsage: boolean;
  /** OpenAI's `user` field: whose memory and limits the request uses. */
  user?: string;
  /** The turns before the last user message (system, developer and earlier user/assistant messages). */
  history: ChatTurn[];
  /** The last message's text: what the agent answers. */
  prompt: string;
}

export type ChatRequestParse = { ok: true; request: ChatRequest } | { ok: false; message: string; param?: string };

export const DEFAULT_MODEL_ID = "hermes";

const USER_ID = /^[A-Za-z0-9_.@-]{1,64}$/;

/**
 * A stateless request's history is written into a fresh transcript in one go, on the gateway's event loop (SQLite is
 * synchronous), and read back by the run: a few hundred thousand tiny messages would stall every chat for seconds.
 */
export const MAX_REQUEST_MESSAGES = 1_000;

/** Reads a chat completion request; anything the gateway cannot honour is a clear error naming the field. */
export function parseChatRequest(body: unknown): ChatRequestParse {
  if (!isRecord(body)) return { ok: false, message: "The request body must be a JSON object." };
  const model = body.model ?? DEFAULT_MODEL_ID;
  if (typeof model !== "string" || model.trim() === "") return { ok: false, message: "`model` must be a non-empty string.", param: "model" };
  const stream = body.stream ?? false;
  if (typeof stream !== "boolean") return { ok: false, message: "`stream` must be a boolean.", param: "stream" };
  const options = body.stream_options ?? undefined;
  if (options !== undefined && options !== null && !isRecord(options)) return { ok: false, message: "`stream_options` must be an object.", param: "stream_options" };
  const includeUsage = isRecord(options) && options.include_usage === true;
  if (body.n !== undefined && body.n !== null && body.n !== 1) return { ok: false, message: "Only `n: 1` is supported.", param: "n" };
  // The agent calls its own tools; a caller's tool definitions would never be called.
  for (const field of ["tools", "functions"] as const) {
    const value = body[field];
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) {
      return { ok: false, message: `\`${field}\` is not supported: the agent uses the tools its operator enabled.`, param: field };
    }
  }
  const user = body.user;
  if (user !== undefined && user !== null && (typeof user !== "string" || !USER_ID.test(user))) {
    return { ok: false, message: "`user` must be 1–64 characters of letters, digits, `_`, `.`, `@` or `-`.", param: "user" };
  }
  const turns = parseMessages(body.messages);
  if (!turns.ok) return turns;
  const last = turns.turns.at(-1);
  if (last === undefined || last.role !== "user") return { ok: false, message: "The last message must have the role `user`.", param: "messages" };
  if (last.text.trim() === "") return { ok: false, message: "The last user message has no text.", param: "messages" };
  const request: ChatRequest = { model, stream, includeUsage, history: turns.turns.slice(0, -1), prompt: last.text };
  if (typeof user === "string") request.user = user;
  return { ok: true, request };
}

function parseMessages(value: unknown): { ok: true; turns: ChatTurn[] } | { ok: false; message: string; param: string } {
  if (!Array.isArray(value) || value.length === 0) return { ok: false, message: "`messages` must be a non-empty array.", param: "messages" };
  if (value.length > MAX_REQUEST_MESSAGES) {
    return { ok: false, message: `\`messages\` holds ${value.length} messages, more than ${MAX_REQUEST_MESSAGES}: send longer conversations with X-Hermes-Session-Id, one new message at a time.`, param: "messages" };
  }
  const turns: ChatTurn[] = [];
  for (const [index, message] of value.entries()) {
    const param = `messages[${index}]`;
    if (!isRecord(message)) return { ok: false, message: `${param} must be an object.`, param };
    const role = message.role;
    if (role === "tool" || role === "function") {
      return { ok: false, message: `${param}: \`${role}\` messages are not supported: the agent runs its own tools.`, param: `${param}.role` };
    }
    if (role !== "system" && role !== "developer" && role !== "user" && role !== "assistant") {
      return { ok: false, message: `${param}.role must be one of system, developer, user, assistant.`, param: `${param}.role` };
    }
    const text = contentText(message.content, role === "assistant");
    if (!text.ok) return { ok: false, message: `${param}.content ${text.problem}`, param: `${param}.content` };
    turns.push({ role: role === "developer" ? "system" : role, text: text.text });
  }
  return { ok: true, turns };
}

/** A message's text: a string, or text parts joined by newlines (an assistant's may be null, e.g. beside tool calls). */
function contentText(content: unknown, nullable: boolean): { ok: true; text: string } | { ok: false; problem: string } {
  if (typeof content === "string") return { ok: true, text: content };
  if ((content === null || content === undefined) && nullable) return { ok: true, text: "" };
  if (!Array.isArray(content)) return { ok: false, problem: "must be a string or an array of text parts." };
  const texts: string[] = [];
  for (const part of content) {
    if (!isRecord(part)) return { ok: false, problem: "must hold only content parts (objects)." };
    if (part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else if (part.type === "refusal" && typeof part.refusal === "string") texts.push(part.refusal);
    else return { ok: false, problem: `holds a part of type \`${String(part.type)}\`; only text parts are supported.` };
  }
  return { ok: true, text: texts.join("\n") };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
