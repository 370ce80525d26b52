// Binds the repositories to a database, and to a transaction when one is asked for.
import type { Repositories, Store } from '../../domain/ports/store.ts';
import type { Database, SqlClient } from './sql-client.ts';
import { creditsRepository } from './repositories/credits.ts';
import { checkoutSessionsRepository } from './repositories/checkout-sessions.ts';
import { organizationsRepository } from './repositories/organizations.ts';
import { outboxRepository, type OutboundEvents } from './repositories/outbox.ts';
import { pendingChangesRepository } from './repositories/pending-changes.ts';
import { seatsRepository } from './repositories/seats.ts';
import { subscriptionsRepository } from './repositories/subscriptions.ts';
import { usersRepository } from './repositories/users.ts';

export type { OutboundEvents };

export function bindRepositories(db: SqlClient, outbound: OutboundEvents): Repositories {
  return {
    users: usersRepository(db),
    organizations: organizationsRepository(db),
    seats: seatsRepository(db),
    checkoutSessions: checkoutSessionsRepository(db),
    subscriptions: subscriptionsRepository(db),
    outbox: outboxRepository(db, outbound),
    pendingChanges: pendingChangesRepository(db),
    credits: creditsRepository(db),
  };
}

export function createStore(db: Database, outbound: OutboundEvents): Store {
  return {
    ...bindRepositories(db, outbound),
    transaction: (work) => db.transaction((tx) => work(bindRepositories(tx, outbound))),
  };
}
