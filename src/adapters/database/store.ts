// Binds the repositories to a database, and to a transaction when one is asked for.
import { unwatched, type TransactionWatch } from '../../domain/events/tier-watch.ts';
import type { Repositories, Store } from '../../domain/ports/store.ts';
import type { Database, SqlClient } from './sql-client.ts';
import { checkoutSessionsRepository } from './repositories/checkout-sessions.ts';
import { organizationsRepository } from './repositories/organizations.ts';
import { outboxRepository } from './repositories/outbox.ts';
import { pendingChangesRepository } from './repositories/pending-changes.ts';
import { seatsRepository } from './repositories/seats.ts';
import { subscriptionsRepository } from './repositories/subscriptions.ts';
import { usersRepository } from './repositories/users.ts';

export function bindRepositories(db: SqlClient): Repositories {
  return {
    users: usersRepository(db),
    organizations: organizationsRepository(db),
    seats: seatsRepository(db),
    checkoutSessions: checkoutSessionsRepository(db),
    subscriptions: subscriptionsRepository(db),
    outbox: outboxRepository(db),
    pendingChanges: pendingChangesRepository(db),
  };
}

/** `watch` sees every transaction's writes, to record the events they make (events/tier-watch.ts). */
export function createStore(db: Database, watch: TransactionWatch = unwatched): Store {
  return {
    ...bindRepositories(db),
    transaction: (work, cause) =>
      db.transaction((tx) => watch(bindRepositories(tx), work, cause ?? null)),
  };
}
