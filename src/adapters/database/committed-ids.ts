// Events whose record this process has seen committed, with their types: a committed record is
// final (only retention deletes it, weeks later), so a redelivery of one is answered with no
// database work, and counted under its type without its body being parsed. Two generations bound
// the memory (about MAX_IDS ids, some 10 MB): when the young one is full it becomes the old one; an
// id found in the old one moves back, so recent redeliveries stay.
const MAX_IDS = 100_000;
/** Distinct event types kept as one string each; a provider has a few hundred. */
const MAX_TYPES = 1_000;

export class CommittedIds {
  private young = new Map<string, string>();
  private old = new Map<string, string>();
  private readonly types = new Map<string, string>();

  constructor(private readonly maxIds = MAX_IDS) {}

  /** The event's type when it is remembered as committed; undefined otherwise. */
  typeOf(id: string): string | undefined {
    const young = this.young.get(id);
    if (young !== undefined) return young;
    const old = this.old.get(id);
    if (old !== undefined) this.add(id, old);
    return old;
  }

  has(id: string): boolean {
    return this.typeOf(id) !== undefined;
  }

  add(id: string, type: string): void {
    this.young.set(id, this.shared(type));
    if (this.young.size < this.maxIds / 2) return;
    this.old = this.young;
    this.young = new Map();
  }

  /** One copy of each type string, rather than one per remembered event. */
  private shared(type: string): string {
    const known = this.types.get(type);
    if (known !== undefined) return known;
    if (this.types.size < MAX_TYPES) this.types.set(type, type);
    return type;
  }
}
