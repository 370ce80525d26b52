// Ids of events whose record this process has seen committed. A committed record is final (only
// retention deletes it, weeks later), so a redelivery of one of these events is answered without
// any database work: during a retry storm or a replay most deliveries are such redeliveries. Bounded
// by two generations: ids go into the young one; when it is full, it becomes the old one and the old
// one is dropped at once; an id found in the old generation moves back to the young. So the ids
// redelivered most recently stay, and memory stays under about MAX_IDS ids (some 8 MB).
const MAX_IDS = 100_000;

export class CommittedIds {
  private young = new Set<string>();
  private old = new Set<string>();

  constructor(private readonly maxIds = MAX_IDS) {}

  has(id: string): boolean {
    if (this.young.has(id)) return true;
    if (!this.old.has(id)) return false;
    this.add(id);
    return true;
  }

  add(id: string): void {
    this.young.add(id);
    if (this.young.size < this.maxIds / 2) return;
    this.old = this.young;
    this.young = new Set();
  }
}
