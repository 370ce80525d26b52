// Binds the repositories to a database, and to a transaction when one is asked for.
import type { Repositories, Store } from '../../domain/ports/store.ts';
import type { Database, SqlClient } from './sql-client.ts';
import { checkoutSessionsRepository } from './repositories/checkout-sessions.ts';
import { subscriptionsRepository } from './repositories/subscriptions.ts';
import { usersRepository } from './repositories/users.ts';
import { eventRecordInsert, isEventRecordedAlready, lockEvent, webhookEventsRepository, webhookFailuresRepository } from './repositories/webhook-events.ts';

function repositories(db: SqlClient): Repositories {
  return {
    users: usersRepository(db),
    checkoutSessions: checkoutSessionsRepository(db),
    subscriptions: subscriptionsRepository(db),
    webhookEvents: webhookEventsRepository(db),
    webhookFailures: webhookFailuresRepository(db),
  };
}

/**
 * Ends a transaction whose event is recorded already: rolled back, nothing run. One instance,
 * thrown each time: redeliveries are common, and capturing a stack per throw showed in the profile.
 */
const RECORDED_ALREADY = new Error('event recorded already');

export function createStore(db: Database): Store {
  return {
    ...repositories(db),
    transaction: (work) => db.transaction((tx) => work(repositories(tx))),
    async handleThenRecord(record, handle) {
      try {
        // Deliveries of one event take turns, so a handler never runs for a recorded event. A
        // redelivery costs one round trip (BEGIN and this statement, sent together) and a
        // ROLLBACK that is not waited for. The record is the transaction's last statement, so it
        // can travel with COMMIT.
        const work = async (tx: SqlClient) => {
          if ((await lockEvent(tx, record.id)).recorded) throw RECORDED_ALREADY;
          await handle(repositories(tx));
        };
        await db.transaction(work, eventRecordInsert(record));
        return true;
      } catch (error) {
        if (error === RECORDED_ALREADY || isEventRecordedAlready(error)) return false;
        throw error;
      }
    },
  };
}
