// Re-reads one user's subscriptions from the payment provider and stores them, for when the stored
// state went wrong (events lost beyond the provider's retries, a bug since fixed): the provider is
// the source of truth. The snapshots are saved as a webhook's read saves them, in one transaction,
// as of the provider's time of the read: an event created before it is older than what it stored,
// and a state stored meanwhile from an event of that second or later is kept.
import { DecideAgain } from '../webhooks/delivery-reads.ts';
import { saveState } from '../webhooks/subscription-sync.ts';
import type { WebhookLog } from '../webhooks/context.ts';
import type { ProviderRead, ProviderSubscription } from '../model.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import { UnknownUserError } from './operator-errors.ts';
import { tierOf, type TierPolicy } from './tier.ts';

export interface SyncUserDeps {
  store: Store;
  payments: PaymentsProvider;
  policy: TierPolicy;
  log: WebhookLog;
  now?: () => Date;
}

export interface SyncUserResult {
  idpId: string;
  customerId: string | null;
  /** The subscriptions the provider reported, each as `id (status)`. */
  subscriptions: string[];
  tierBefore: string;
  tierAfter: string;
}

/** A stored state of the read's very second is a tie the read cannot settle: read again, a second later. */
const MAX_READS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Saves what the read says where it is newer than what is stored; false when a tie was left. */
async function saveNewer(
  deps: SyncUserDeps,
  { value: fresh, readAt }: ProviderRead<ProviderSubscription[]>,
): Promise<boolean> {
  const save = () =>
    deps.store.transaction(async (tx) => {
      let settled = true;
      for (const subscription of fresh) {
        const stored = await tx.subscriptions.findForUpdate(subscription.id);
        if (stored === null || stored.asOf < readAt)
          await saveState(
            { tx, log: deps.log },
            { stored, next: subscription, asOf: readAt, created: readAt },
          );
        else settled &&= stored.asOf > readAt;
      }
      return settled;
    });
  // A delivery may store a first snapshot between our look and our insert: then look again, once.
  return save().catch((error: unknown) =>
    error instanceof DecideAgain ? save() : Promise.reject(error),
  );
}

export async function syncUser(deps: SyncUserDeps, idpId: string): Promise<SyncUserResult> {
  const clock = deps.now ?? (() => new Date());
  const user = await deps.store.users.findByIdpId(idpId);
  if (user === null) throw new UnknownUserError(idpId);
  const tierBefore = tierOf(user.subscription, deps.policy, clock());
  if (user.paymentsCustomerId === null) {
    // Never checked out: the provider has nothing of this user's to read.
    return { idpId, customerId: null, subscriptions: [], tierBefore, tierAfter: tierBefore };
  }
  const customerId = user.paymentsCustomerId;
  let fresh: ProviderSubscription[] = [];
  for (let attempt = 1; attempt <= MAX_READS; attempt++) {
    const read = await deps.payments.listSubscriptions(customerId);
    fresh = read.value;
    if ((await saveNewer(deps, read)) || attempt === MAX_READS) break;
    await sleep(1000);
  }
  const after = await deps.store.users.findById(user.id);
  return {
    idpId,
    customerId,
    subscriptions: fresh.map((s) => `${s.id} (${s.status})`),
    tierBefore,
    tierAfter: tierOf(after?.subscription ?? null, deps.policy, clock()),
  };
}
