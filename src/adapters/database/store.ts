// Binds the repositories to a database, and to a transaction when one is asked for.
import type { Repositories, Store } from '../../domain/ports.ts';
import type { Database, SqlClient } from './sql-client.ts';
import { checkoutSessionsRepository } from './repositories/checkout-sessions.ts';
import { subscriptionsRepository } from './repositories/subscriptions.ts';
import { usersRepository } from './repositories/users.ts';
import { eventRecordInsert, isEventRecordedAlready, webhookEventsRepository, webhookFailuresRepository } from './repositories/webhook-events.ts';

function repositories(db: SqlClient): Repositories {
  return {
    users: usersRepository(db),
    checkoutSessions: checkoutSessionsRepository(db),
    subscriptions: subscriptionsRepository(db),
    webhookEvents: webhookEventsRepository(db),
    webhookFailures: webhookFailuresRepository(db),
  };
}

export function createStore(db: Database): Store {
  return {
    ...repositories(db),
    transaction: (work) => db.transaction((tx) => work(repositories(tx))),
    async handleThenRecord(record, handle) {
      try {
        // The record is the transaction's last statement, so it can travel with COMMIT.
        await db.transaction((tx) => handle(repositories(tx)), eventRecordInsert(record));
        return true;
      } catch (error) {
        if (isEventRecordedAlready(error)) return false;
        throw error;
      }
    },
  };
}
