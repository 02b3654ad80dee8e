/**
 * Collects streamed text up to a character budget, keeping the beginning and the end: the start of a command's
 * output says what it did, the end holds the summary or the error.
 */
export class CappedOutput {
  private head = "";
  private tail = "";
  private total = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(private readonly maxChars: number) {
    this.headLimit = Math.ceil(maxChars / 2);
    this.tailLimit = maxChars - this.headLimit;
  }

  append(chunk: string): void {
    this.total += chunk.length;
    const roomInHead = this.headLimit - this.head.length;
    if (roomInHead > 0) {
      this.head += chunk.slice(0, roomInHead);
      chunk = chunk.slice(roomInHead);
    }
    if (chunk === "") return;
    this.tail += chunk;
    // Trimming only once the tail doubles keeps appends amortised O(chunk) instead of copying on every write.
    if (this.tail.length > 2 * this.tailLimit) this.tail = this.tail.slice(-this.tailLimit);
  }

  get totalChars(): number {
    return this.total;
  }

  render(): string {
    if (this.total <= this.maxChars) return this.head + this.tail;
    const tail = this.tailLimit === 0 ? "" : this.tail.slice(-this.tailLimit);
    const omitted = this.total - this.head.length - tail.length;
    return `${this.head}\n[... ${omitted} characters omitted ...]\n${tail}`;
  }
}
