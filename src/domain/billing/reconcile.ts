// The reconciliation: brings the stored subscriptions back to the provider's state, for events lost
// beyond the provider's retries and customers who subscribed before the service was connected. It
// lists every subscription, 100 a page (never a call per subscription), and applies each page in a
// short transaction through the same ordering as a delivery (provider-listing.ts): safe any time.
import type { ProviderRead } from '../model/subscriptions.ts';
import type { PaymentsProvider, SubscriptionsPage } from '../ports/payments-provider.ts';
import { retryWhileThrottled } from '../retry-while-throttled.ts';
import {
  applyListing,
  emptyTally,
  settleTies,
  tally,
  type Change,
  type ListingDeps,
  type ListingOptions,
  type Tally,
} from './provider-listing.ts';

export interface ReconcileOptions extends ListingOptions {
  /** Stops the run between pages (the process is closing, or another instance took over). */
  signal?: AbortSignal;
  /** Told after each page, with the totals so far. */
  onPage?: (page: number, soFar: Tally) => void;
}

export interface ReconcileResult extends Tally {
  pages: number;
  /** Customers listed again, a second later, to settle a tie (provider-listing.ts). */
  relisted: number;
  /** The subscriptions repaired (or, with dryRun, to be) and those linked to no user. */
  changes: Change[];
}

export async function reconcile(
  deps: ListingDeps & { payments: PaymentsProvider },
  options: ReconcileOptions = {},
): Promise<ReconcileResult> {
  const totals = emptyTally();
  const changes: Change[] = [];
  const tied: Change[] = [];
  let pages = 0;
  for (let after: string | null = null; ;) {
    options.signal?.throwIfAborted();
    const cursor: string | null = after;
    const read: ProviderRead<SubscriptionsPage> = await retryWhileThrottled(
      () => deps.payments.listSubscriptionsPage(cursor),
      options,
    );
    pages += 1;
    for (const { id, reason } of read.value.untranslatable)
      deps.log.warn(
        { subscriptionId: id, reason },
        'listed subscription not linked: untranslatable',
      );
    totals.seen += read.value.untranslatable.length;
    totals.unlinked += read.value.untranslatable.length;
    const applied = await applyListing(
      deps,
      { value: read.value.subscriptions, readAt: read.readAt },
      options,
    );
    for (const change of applied) {
      if (change.verdict === 'tied') tied.push(change);
      else tally([change], totals);
      if (change.verdict === 'repaired' || change.verdict === 'unlinked') changes.push(change);
    }
    options.onPage?.(pages, totals);
    after = read.value.next;
    if (after === null) break;
  }
  let relisted = 0;
  const onRelist = () => void (relisted += 1);
  for (const change of await settleTies(deps, tied, { ...options, onRelist })) {
    tally([change], totals);
    if (change.verdict === 'repaired' || change.verdict === 'unlinked') changes.push(change);
  }
  return { ...totals, pages, relisted, changes };
}
