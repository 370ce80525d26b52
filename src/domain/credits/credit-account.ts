// The rules of a subject's credits, with no storage in them: one grant at a time (a new one ends
// the one before, what was left expiring then), purchased credits that never expire, a spend that
// takes from the grant first, and a balance that never goes below zero. An account is worked on
// under its stored row's lock (ports/credits.ts) and hands back the entries its changes make.
import {
  spendable,
  type CreditBalance,
  type CreditEntryKind,
  type NewCreditEntry,
} from '../ports/credits.ts';

/** A grant to make: how much, until when, and what it counts once for (an invoice, a month). */
export interface GrantInput {
  amount: number;
  expiresAt: Date;
  source: string;
  reason: string;
}

export class CreditAccount {
  readonly entries: NewCreditEntry[] = [];

  constructor(
    private state: CreditBalance,
    private readonly now: Date,
  ) {
    this.expireGrant();
  }

  get balance(): CreditBalance {
    return this.state;
  }

  get total(): number {
    return spendable(this.state);
  }

  /**
   * Whether the application is to be told the credits ran out: the balance reached zero, or a spend
   * was refused for want of them; once, until credits are added again.
   */
  depletedNow(refused: boolean): boolean {
    if (this.total > 0 && this.entries.some(({ amount }) => amount > 0))
      this.state = { ...this.state, depleted: false };
    const ranOut = refused || (this.total === 0 && this.entries.length > 0);
    if (this.state.depleted || !ranOut) return false;
    this.state = { ...this.state, depleted: true };
    return true;
  }

  grant({ amount, expiresAt, source, reason }: GrantInput): void {
    this.endGrant(this.now, 'replaced by a new grant');
    this.state = { ...this.state, grant: { amount, remaining: amount, expiresAt, source } };
    this.record('grant', amount, { reason, source });
  }

  /** Adds credits that never expire (a pack, an operator's adjustment). */
  add(
    kind: 'purchase' | 'adjustment',
    amount: number,
    source: string | null,
    reason: string | null,
  ) {
    this.state = { ...this.state, purchased: this.state.purchased + amount };
    this.record(kind, amount, { reason, source });
  }

  /** Takes `amount`, from the grant first; false (nothing taken) when the balance is below it. */
  take(kind: 'spend' | 'adjustment', amount: number, reason: string | null): boolean {
    if (amount > this.total) return false;
    const grant = this.state.grant;
    const fromGrant = Math.min(grant?.remaining ?? 0, amount);
    this.state = {
      ...this.state,
      grant: grant && { ...grant, remaining: grant.remaining - fromGrant },
      purchased: this.state.purchased - (amount - fromGrant),
    };
    this.record(kind, -amount, { reason, source: null });
    return true;
  }

  /** A refund's share, taken from purchased credits as far as they go; says what it could not take. */
  refund(due: number, { source, what }: { source: string; what: string }): number {
    const taken = Math.min(due, this.state.purchased);
    this.state = { ...this.state, purchased: this.state.purchased - taken };
    const short = due - taken;
    const reason =
      short === 0
        ? what
        : `${what}: ${short} of the ${due} credits due were spent already and not removed`;
    this.record('refund', -taken, { reason, source });
    return short;
  }

  /** A grant whose time is up expires, at its end, with what was left of it. */
  private expireGrant(): void {
    const grant = this.state.grant;
    if (grant !== null && grant.expiresAt <= this.now) this.endGrant(grant.expiresAt, null);
  }

  private endGrant(at: Date, reason: string | null): void {
    const grant = this.state.grant;
    if (grant === null) return;
    this.state = { ...this.state, grant: null };
    if (grant.remaining > 0) this.record('expiry', -grant.remaining, { reason, source: null, at });
  }

  private record(
    kind: CreditEntryKind,
    amount: number,
    { reason, source, at = this.now }: { reason: string | null; source: string | null; at?: Date },
  ): void {
    this.entries.push({ at, kind, amount, balanceAfter: this.total, reason, source });
  }
}
