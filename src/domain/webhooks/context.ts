// What an event handler gets: the repositories bound to the event's transaction, the provider
// for re-reads, and a logger. Handlers return nothing; throwing rolls the whole event back.
import type { PaymentEvent } from '../model.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Repositories } from '../ports/store.ts';

export interface WebhookLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface HandlerContext {
  tx: Repositories;
  payments: PaymentsProvider;
  log: WebhookLog;
  now: Date;
}

export type EventHandler = (event: PaymentEvent, ctx: HandlerContext) => Promise<void>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Finds the user an event belongs to: by our own id carried in the event, else by the customer. */
export async function findEventUser(tx: Repositories, userId: string | null, customerId: string | null) {
  const byId = userId !== null && UUID.test(userId) ? await tx.users.findById(userId) : null;
  return byId ?? (customerId !== null ? await tx.users.findByCustomerId(customerId) : null);
}
