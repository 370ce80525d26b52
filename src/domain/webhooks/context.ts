// What an event handler is: `prepare` gathers provider reads before any transaction (no lock, no
// connection held), `apply` does the database work inside the event's transaction. Throwing
// rolls the whole event back; DecideAgain (delivery-reads.ts) makes the service read what is
// missing, outside the transaction, and apply again.
import type { PaymentEvent, User } from '../model.ts';
import type { CarriedState } from '../ports/event-ledger.ts';
import type { Logger } from '../ports/logger.ts';
import type { Repositories, Store } from '../ports/store.ts';
import type { DeliveryReads } from './delivery-reads.ts';

export interface PrepareContext {
  /** Reads outside any transaction, to decide what to ask the provider first. */
  store: Pick<Store, 'subscriptions'>;
  reads: DeliveryReads;
  /** Whether this event is recorded already (then a provider call would be thrown away). */
  isRecorded(): Promise<boolean>;
}

export interface ApplyContext {
  tx: Repositories;
  reads: DeliveryReads;
  log: Logger;
  now: Date;
}

/**
 * The handler of one kind of event. Function-typed properties rather than methods, so that the
 * compiler checks the event parameter strictly: a handler of invoice events does not fit where a
 * handler of subscription events is expected.
 */
export interface EventHandler<E extends PaymentEvent> {
  /** The kind of event it takes; checked again when an event is handed to it. */
  readonly kind: E['kind'];
  readonly prepare?: (event: E, ctx: PrepareContext) => Promise<void>;
  readonly apply: (event: E, ctx: ApplyContext) => Promise<void>;
  /**
   * For an event that carries its subscription's state: that state, which the ledger may write
   * with the record in one step where the ordering settles it (newer or older than what is
   * stored); `prepare` and `apply` run only where it does not.
   */
  readonly carriedState?: (event: E) => CarriedState;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The user an event belongs to: the one linked to its customer, else the one our own id in the
 * event names. A customer's link is ours and final; an id carried in provider data (metadata,
 * client_reference_id) that disagrees with it is logged and not followed.
 */
export async function findEventUser(
  ctx: Pick<ApplyContext, 'tx' | 'log'>,
  namedUserId: string | null,
  customerId: string | null,
): Promise<User | null> {
  const linked = customerId !== null ? await ctx.tx.users.findByCustomerId(customerId) : null;
  if (linked !== null) {
    if (namedUserId !== null && namedUserId !== linked.id) {
      ctx.log.warn(
        { customer: customerId, linkedUser: linked.id, namedUser: namedUserId },
        'event names another user than its customer is linked to: the customer link wins',
      );
    }
    return linked;
  }
  return namedUserId !== null && UUID.test(namedUserId) ? ctx.tx.users.findById(namedUserId) : null;
}
