// The id every portal session passes: learnt at start-up where it can be, else by the first portal
// call that reaches the provider (found by its mark, or made, under the lease). Checked with the
// provider again once an hour old, so that a hand edit there is set back within the hour, and at
// once when the provider refuses it on a portal call (deactivated there): no restart needed. Until
// it is known the portal is refused as the provider's outage is.
import { DomainError } from '../errors.ts';
import {
  checkPrices,
  ownPortalConfiguration,
  setUpProvider,
  type ConfiguredPrice,
  type SetUp,
} from './provider-setup.ts';

const RECHECK_MS = 60 * 60_000;
/** On a portal call: long enough for another instance's set-up to end, short for a person. */
const WAIT_ON_CALL_MS = 2_000;

export class PortalConfigurationId {
  private known: { id: string; checkedAt: number } | null = null;
  private checking: Promise<string> | null = null;

  constructor(
    private readonly setUp: SetUp,
    private readonly catalog: readonly ConfiguredPrice[],
  ) {}

  async startUp(): Promise<void> {
    const id = await setUpProvider(this.setUp, this.catalog);
    if (id !== null) this.known = { id, checkedAt: Date.now() };
  }

  /** The id known, or checked again when it is an hour old (kept when the provider is down). */
  async id(): Promise<string> {
    const known = this.known;
    if (known !== null && Date.now() - known.checkedAt < RECHECK_MS) return known.id;
    // One check at a time in this process; a failed one is not remembered.
    this.checking ??= this.check().finally(() => {
      this.checking = null;
    });
    return known === null ? this.checking : this.checking.catch(() => known.id);
  }

  /** The provider refused `id` for a portal session: the next call checks it again. */
  refused(id: string): void {
    this.setUp.log.warn(
      { configuration: id },
      `the payment provider refused portal configuration ${id}; checking it again`,
    );
    if (this.known?.id === id) this.known = null;
  }

  private async check(): Promise<string> {
    const prices = await checkPrices(this.setUp.payments, this.catalog);
    const id = await ownPortalConfiguration(this.setUp, prices, WAIT_ON_CALL_MS);
    if (id === null)
      throw new DomainError(
        'payments_unavailable',
        'Payment provider unavailable: the billing portal is being set up, try again shortly',
      );
    this.known = { id, checkedAt: Date.now() };
    return id;
  }
}
