import { MEMORY_FENCE_CLOSE, MEMORY_FENCE_OPEN, sanitizeContext } from "./context-fence.js";

// The tags are ASCII; folding only A-Z keeps indexes of the folded text valid for the original.
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** Length of the longest end of `folded` that could be the start of one of `tags` (so must wait for more text). */
function partialTagLength(folded: string, tags: readonly string[]): number {
  const longest = Math.min(folded.length, Math.max(...tags.map((tag) => tag.length - 1)));
  for (let length = longest; length > 0; length--) {
    const tail = folded.slice(folded.length - length);
    if (tags.some((tag) => tag.startsWith(tail))) return length;
  }
  return 0;
}

/**
 * Removes `<memory-context>…</memory-context>` spans (tags matched case-insensitively, spans not nested) from
 * streamed model output, so recalled memory the model echoes never reaches the person. A stray closing tag is
 * removed too. Text that could still become a tag is held back until the next chunk settles it; the output over
 * any chunking equals the output for the whole text at once.
 *
 * Text inside a span is held back rather than dropped, because only the closing tag proves it was a fence: a reply
 * that merely mentions the tag ("the `<memory-context>` tag marks memory; the answer is 42") never closes it, and
 * dropping everything after the mention would cut the answer off or leave it empty.
 */
export class StreamingContextScrubber {
  private inSpan = false;
  private pending = "";
  /** Text of the open span seen so far, without its opening tag and without `pending`. */
  private spanText = "";

  /** Returns the part of the stream so far that is certainly visible. */
  feed(chunk: string): string {
    let text = this.pending + chunk;
    this.pending = "";
    let visible = "";
    for (;;) {
      const folded = foldAscii(text);
      if (this.inSpan) {
        const close = folded.indexOf(MEMORY_FENCE_CLOSE);
        if (close === -1) {
          const held = partialTagLength(folded, [MEMORY_FENCE_CLOSE]);
          this.spanText += text.slice(0, text.length - held);
          this.pending = text.slice(text.length - held);
          return visible;
        }
        this.inSpan = false;
        this.spanText = "";
        text = text.slice(close + MEMORY_FENCE_CLOSE.length);
        continue;
      }
      const open = folded.indexOf(MEMORY_FENCE_OPEN);
      const close = folded.indexOf(MEMORY_FENCE_CLOSE);
      const first = open === -1 ? close : close === -1 ? open : Math.min(open, close);
      if (first === -1) {
        const held = partialTagLength(folded, [MEMORY_FENCE_OPEN, MEMORY_FENCE_CLOSE]);
        this.pending = text.slice(text.length - held);
        return visible + text.slice(0, text.length - held);
      }
      visible += text.slice(0, first);
      if (first === open) {
        this.inSpan = true;
        text = text.slice(first + MEMORY_FENCE_OPEN.length);
      } else {
        text = text.slice(first + MEMORY_FENCE_CLOSE.length);
      }
    }
  }

  /**
   * Ends the stream: held-back text that never became a tag is released, and so is the text of a span that never
   * closed, with any fence tags in it removed (it was a mention of the tag, not a fence). The scrubber is then
   * ready for reuse.
   */
  flush(): string {
    const rest = this.inSpan ? sanitizeContext(this.spanText + this.pending) : this.pending;
    this.inSpan = false;
    this.pending = "";
    this.spanText = "";
    return rest;
  }
}
