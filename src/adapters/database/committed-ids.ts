// Ids of events whose record this process has seen committed: a committed record is final (only
// retention deletes it, weeks later), so a redelivery of one is answered with no database work.
// Two generations bound the memory (about MAX_IDS ids, some 8 MB): when the young one is full it
// becomes the old one; an id found in the old one moves back, so recent redeliveries stay.
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
