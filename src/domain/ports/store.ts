// The database, as the domain needs it: every repository, bound to a transaction when one is asked
// for.
import type { CheckoutSessionsRepository } from './checkout-sessions.ts';
import type { CreditsRepository } from './credits.ts';
import type { OrganizationsRepository } from './organizations.ts';
import type { OutboxRepository } from './outbox.ts';
import type { PendingChangesRepository } from './pending-changes.ts';
import type { SeatsRepository } from './seats.ts';
import type { SubscriptionsRepository } from './subscriptions.ts';
import type { UsersRepository } from './users.ts';

export interface Repositories {
  pendingChanges: PendingChangesRepository;
  users: UsersRepository;
  organizations: OrganizationsRepository;
  seats: SeatsRepository;
  checkoutSessions: CheckoutSessionsRepository;
  subscriptions: SubscriptionsRepository;
  outbox: OutboxRepository;
  credits: CreditsRepository;
}

export interface Store extends Repositories {
  /** Runs `work` in one transaction, on the repositories bound to it. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}
