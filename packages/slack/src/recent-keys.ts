/**
 * A set that remembers only the most recent `capacity` keys, so memory stays bounded however long the gateway runs.
 * Adding a key again refreshes it.
 */
export class RecentKeys {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.values().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
  }

  get size(): number {
    return this.keys.size;
  }
}
