// A bounded map whose entries expire: at most `maxEntries`, the least recently used evicted first
// (a Map iterates in insertion order, and a hit re-inserts), and an entry past its time is gone.
export class ExpiringEntries<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (ms since the epoch, on the clock given). */
  set(key: string, value: T, expiresAt: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries)
      this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt });
  }
}
