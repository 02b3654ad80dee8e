import { chunkMarkdown } from "../outbound/chunk-markdown.js";
import { codePointBoundary } from "../outbound/utf16.js";

/** What a streamed reply should do next to show its newest state: send part `part`, edit it, or nothing. */
export type StreamAction = { kind: "send" | "edit"; part: number; text: string } | undefined;

export interface StreamView {
  text: string;
  status?: string;
  /** The text each message of the stream shows now, in order. */
  shown: readonly string[];
}

const STATUS_MARK = "⏳ ";
const MAX_STATUS_ROOM = 80;
/** What a message left without text of its own shows (the text shrank at a new step). */
export const EMPTY_PART = "⋯";

/** Room kept free at the end of every message for the status line, so the split points do not move as it comes and goes. */
export function statusRoom(limit: number): number {
  return Math.min(MAX_STATUS_ROOM, Math.floor(limit / 4));
}

/** The status as the last line shows it, cut to `room` minus its line break; undefined when it does not fit at all. */
export function statusLine(status: string | undefined, room: number): string | undefined {
  if (status === undefined || status === "") return undefined;
  const line = STATUS_MARK + status;
  const max = room - 1;
  if (max < STATUS_MARK.length + 1) return undefined;
  return line.length <= max ? line : line.slice(0, codePointBoundary(line, max - 1)) + "…";
}

/**
 * The next step towards showing `view` in messages of at most `limit` UTF-16 code units: a message that overflows is
 * frozen at a split point (edited once to its final part, without the status), and the rest continues in a new one.
 */
export function nextStreamAction(view: StreamView, limit: number): StreamAction {
  const room = statusRoom(limit);
  const chunks = view.text.trim() === "" ? [] : chunkMarkdown(view.text, Math.max(1, limit - room), { markers: false });
  const status = statusLine(view.status, room);
  const compose = (chunk: string | undefined, withStatus: boolean): string =>
    [chunk, withStatus ? status : undefined].filter((line): line is string => line !== undefined && line !== "").join("\n");
  const count = view.shown.length;
  if (count === 0) {
    const first = compose(chunks[0], chunks.length <= 1);
    return first === "" ? undefined : { kind: "send", part: 0, text: first };
  }
  const live = count - 1;
  if (chunks.length > count) {
    const frozen = chunks[live] ?? "";
    if (view.shown[live] !== frozen) return { kind: "edit", part: live, text: frozen };
    return { kind: "send", part: count, text: compose(chunks[count], chunks.length === count + 1) };
  }
  let wanted = compose(chunks[live], true);
  if (wanted === "") {
    if (live === 0) return undefined;
    wanted = EMPTY_PART;
  }
  return view.shown[live] === wanted ? undefined : { kind: "edit", part: live, text: wanted };
}
