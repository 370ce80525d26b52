// Binds the repositories to a database, and to a transaction when one is asked for.
import type { Repositories, Store } from '../../domain/ports/store.ts';
import type { Database, SqlClient } from './sql-client.ts';
import { checkoutSessionsRepository } from './repositories/checkout-sessions.ts';
import { organizationsRepository } from './repositories/organizations.ts';
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
  };
}

export function createStore(db: Database): Store {
  return {
    ...bindRepositories(db),
    transaction: (work) => db.transaction((tx) => work(bindRepositories(tx))),
  };
}
