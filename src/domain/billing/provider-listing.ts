// Subscriptions as the provider lists them, applied through the same ordering as a delivery: a
// listing answered at `readAt` (the provider's time) is written only over a state stored as of an
// older second, so a late event older than it cannot undo the repair and a newer state is kept. A
// tie (a state of that very second that says otherwise) is settled by listing again a second later.
import type {
  ProviderRead,
  ProviderSubscription,
  SubscriptionState,
} from '../model/subscriptions.ts';
import type { EventPolicy } from '../events/subject-changes.ts';
import type { TierCause } from '../events/tier-reason.ts';
import type { Logger } from '../ports/logger.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Repositories, Store } from '../ports/store.ts';
import {
  retryWhileThrottled,
  realSleep,
  type ThrottledRetryOptions,
} from '../retry-while-throttled.ts';
import { findEventSubject } from '../webhooks/context.ts';
import { DecideAgain, sameTerms } from '../webhooks/delivery-reads.ts';
import { ordering } from '../webhooks/ordering.ts';
import { storeSchedule } from '../webhooks/handlers/subscription-schedule.ts';
import { saveState } from '../webhooks/subscription-sync.ts';

/**
 * repaired: stored (or would be) because it was missing or said otherwise; unchanged: what is
 * stored says the same, or is newer; unlinked: no user or organisation to store it for (neither a
 * linked customer nor our id in its metadata); tied: stored from an event of the listing's very
 * second.
 */
export type Verdict = 'repaired' | 'unchanged' | 'unlinked' | 'tied';

export interface Change {
  subscription: ProviderSubscription;
  /** What was stored before; null for a subscription new to us. */
  before: SubscriptionState | null;
  verdict: Verdict;
}

export interface ListingDeps {
  store: Store;
  log: Logger;
  /** How the changes a listing makes are told to the application. */
  policy: EventPolicy;
}

export interface ListingOptions extends ThrottledRetryOptions {
  /** Decide and report, write nothing. */
  dryRun?: boolean;
  /** Why the tiers it changes changed, as the application is told; default `reconciled`. */
  cause?: TierCause;
}

/** A delivery may store a first snapshot between our look and our insert: then look again. */
const MAX_ATTEMPTS = 3;
/** A tie is settled by listing again a second later, at most this often. */
const MAX_RELISTS = 2;

async function decide(
  deps: ListingDeps,
  repos: Repositories,
  { value: listed, readAt }: ProviderRead<ProviderSubscription[]>,
  { write, cause }: { write: boolean; cause: TierCause },
): Promise<Change[]> {
  const ids = listed.map((s) => s.id);
  const stored = new Map(
    (await repos.subscriptions.findMany(ids, { lock: write })).map((s) => [s.id, s]),
  );
  const confirmed: string[] = [];
  const changes: Change[] = [];
  const telling = { policy: deps.policy, cause, now: new Date() };
  const ctx = { tx: repos, log: deps.log, telling };
  for (const next of listed) {
    const before = stored.get(next.id) ?? null;
    const order = before === null ? null : ordering(readAt, before.asOf);
    let verdict: Verdict;
    if (before !== null && order !== 'newer') {
      verdict = order === 'older' || sameTerms(next, before) ? 'unchanged' : 'tied';
    } else if (before !== null && sameTerms(next, before)) {
      // The same terms, now known current as of the listing: a late event older than it is skipped.
      confirmed.push(next.id);
      verdict = 'unchanged';
    } else if (write) {
      const saved = await saveState(ctx, { stored: before, next, asOf: readAt, created: readAt });
      verdict = saved === 'saved' ? 'repaired' : 'unlinked';
    } else {
      const named = { userId: next.metadataUserId, orgId: next.metadataOrgId };
      const owner = before ?? (await findEventSubject(ctx, named, next.customerId));
      verdict = owner === null ? 'unlinked' : 'repaired';
    }
    changes.push({ subscription: next, before, verdict });
    if (write) await storeSchedule(ctx, next, readAt);
  }
  if (write) await repos.subscriptions.confirm(confirmed, readAt);
  return changes;
}

/**
 * Applies one listing in one short transaction (its rows locked in the order of their ids), or
 * only decides with `dryRun`. The provider was read before; nothing here waits on it.
 */
export async function applyListing(
  deps: ListingDeps,
  read: ProviderRead<ProviderSubscription[]>,
  { dryRun = false, cause = 'reconciled' }: ListingOptions = {},
): Promise<Change[]> {
  if (dryRun) return decide(deps, deps.store, read, { write: false, cause });
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.store.transaction((tx) => decide(deps, tx, read, { write: true, cause }));
    } catch (error) {
      if (!(error instanceof DecideAgain) || attempt === MAX_ATTEMPTS) throw error;
    }
  }
}

/** One customer's subscriptions, as often as the provider throttles the listing. */
const listCustomer = (
  deps: { payments: PaymentsProvider },
  customerId: string,
  options: ListingOptions,
) => retryWhileThrottled(() => deps.payments.listSubscriptions(customerId), options);

/**
 * Settles the ties among `changes` by listing their customers' subscriptions again, a second
 * later, up to twice; a tie left after that keeps the state stored from the event of that second
 * (counted unchanged). Returns `changes` with the ties replaced by what settled them.
 */
export async function settleTies(
  deps: ListingDeps & { payments: PaymentsProvider },
  changes: Change[],
  options: ListingOptions & { onRelist?: () => void } = {},
): Promise<Change[]> {
  const sleep = options.sleep ?? realSleep;
  const settled = new Map<string, Change>();
  let tied = changes.filter((c) => c.verdict === 'tied');
  for (let attempt = 1; tied.length > 0 && attempt <= MAX_RELISTS; attempt++) {
    await sleep(1000);
    const customers = new Set(tied.map((c) => c.subscription.customerId));
    const ids = new Set(tied.map((c) => c.subscription.id));
    for (const customerId of customers) {
      options.onRelist?.();
      const read = await listCustomer(deps, customerId, options);
      for (const change of await applyListing(deps, read, options))
        if (ids.has(change.subscription.id)) settled.set(change.subscription.id, change);
    }
    tied = [...settled.values()].filter((c) => c.verdict === 'tied');
  }
  return changes.map((change) => {
    const last = settled.get(change.subscription.id) ?? change;
    if (last.verdict !== 'tied') return last;
    deps.log.warn(
      { subscription: last.subscription.id },
      'stored from an event of the same second as every listing: left as stored',
    );
    return { ...last, verdict: 'unchanged' };
  });
}

/** Lists one customer's subscriptions and applies them, ties settled. */
export async function applyCustomerListing(
  deps: ListingDeps & { payments: PaymentsProvider },
  customerId: string,
  options: ListingOptions = {},
): Promise<Change[]> {
  const read = await listCustomer(deps, customerId, options);
  return settleTies(deps, await applyListing(deps, read, options), options);
}

export interface Tally {
  seen: number;
  repaired: number;
  unchanged: number;
  unlinked: number;
}

export function tally(changes: readonly Change[], into: Tally = emptyTally()): Tally {
  for (const { verdict } of changes) {
    into.seen += 1;
    if (verdict === 'tied') into.unchanged += 1;
    else into[verdict] += 1;
  }
  return into;
}

export const emptyTally = (): Tally => ({ seen: 0, repaired: 0, unchanged: 0, unlinked: 0 });
