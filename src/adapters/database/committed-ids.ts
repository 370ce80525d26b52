// Events whose record this process has seen committed, with their types: a committed record is
// final (only retention deletes it, weeks later), so a redelivery of one is answered with no
// database work, and counted under its type without its body being parsed. The last MAX_IDS
// events seen are kept (some 2.5 MB): redeliveries come soon after the first delivery, and an
// older one costs one indexed read.
const MAX_IDS = 20_000;
/** Distinct event types kept as one string each; a provider has a few hundred. */
const MAX_TYPES = 1_000;

export class CommittedIds {
  /** In the order they were added: the oldest first. */
  private readonly ids = new Map<string, string>();
  private readonly types = new Map<string, string>();

  constructor(private readonly maxIds = MAX_IDS) {}

  /** The event's type when it is remembered as committed; undefined otherwise. */
  typeOf(id: string): string | undefined {
    return this.ids.get(id);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string, type: string): void {
    if (this.ids.has(id)) return;
    this.ids.set(id, this.shared(type));
    if (this.ids.size > this.maxIds) this.ids.delete(this.ids.keys().next().value!);
  }

  /** One copy of each type string, rather than one per remembered event. */
  private shared(type: string): string {
    const known = this.types.get(type);
    if (known !== undefined) return known;
    if (this.types.size < MAX_TYPES) this.types.set(type, type);
    return type;
  }
}
