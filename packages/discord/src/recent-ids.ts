/** A bounded set that forgets its oldest entries: remembers the bot's recent messages without growing forever. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 5_000) {}

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
