// Which way a delivery looks for its event's record. A redelivery is answered by one read with no
// transaction; a new event is better served by going straight into its transaction, whose first
// statement looks anyway (so a read first would only add a round trip). Which kind comes next is
// guessed from the recent past: during a replay or a retry backlog most deliveries are
// redeliveries, otherwise most are new. Either way the answer is the same; only the cost differs.

/** Weight of the newest delivery in the running share (about the last 16 count). */
const WEIGHT = 1 / 16;
/** Switch to reading first above this share, back below the other: an even mix does not flap. */
const READ_FIRST_ABOVE = 0.6;
const TRANSACTION_FIRST_BELOW = 0.4;

export class RedeliveryShare {
  private share = 0;
  private readFirst = false;

  /** Records whether a delivery turned out to be a redelivery (its event was recorded already). */
  observe(redelivery: boolean): void {
    this.share += ((redelivery ? 1 : 0) - this.share) * WEIGHT;
    if (this.share > READ_FIRST_ABOVE) this.readFirst = true;
    else if (this.share < TRANSACTION_FIRST_BELOW) this.readFirst = false;
  }

  /** True when most recent deliveries were redeliveries. */
  get mostlyRedeliveries(): boolean {
    return this.readFirst;
  }
}
