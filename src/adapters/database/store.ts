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

type Builders<T> = { [K in keyof T]: () => T[K] };

/**
 * Each repository built when first used, then kept: every transaction binds them afresh, and a
 * provider event's uses two of the eight (building all cost a webhook some 3% of its CPU).
 */
function builtWhenUsed<T extends object>(builders: Builders<T>): T {
  const repositories = {} as T;
  for (const name of Object.keys(builders) as (keyof T)[])
    Object.defineProperty(repositories, name, {
      enumerable: true,
      get() {
        const repository = builders[name]();
        Object.defineProperty(repositories, name, { value: repository, enumerable: true });
        return repository;
      },
      configurable: true,
    });
  return repositories;
}

export function bindRepositories(db: SqlClient, outbound: OutboundEvents): Repositories {
  return builtWhenUsed<Repositories>({
    users: () => usersRepository(db),
    organizations: () => organizationsRepository(db),
    seats: () => seatsRepository(db),
    checkoutSessions: () => checkoutSessionsRepository(db),
    subscriptions: () => subscriptionsRepository(db),
    outbox: () => outboxRepository(db, outbound),
    pendingChanges: () => pendingChangesRepository(db),
    credits: () => creditsRepository(db),
  });
}

export function createStore(db: Database, outbound: OutboundEvents): Store {
  return {
    ...bindRepositories(db, outbound),
    transaction: (work) => db.transaction((tx) => work(bindRepositories(tx, outbound))),
  };
}
