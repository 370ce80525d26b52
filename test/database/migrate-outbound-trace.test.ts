// Migration 017 (the trace of an outbound event) on a database an earlier release filled: every
// event is kept and still claimed as before, with no trace recorded (its delivery starts a trace of
// its own). An event written since records the trace it was written in: test/tracing/traces.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { createOutbox } from '../../src/adapters/database/outbox.ts';
import { databaseLabel, migratedBefore, type OpenTestDatabase } from '../helpers/database.ts';

const ANN = '00000000-0000-4000-8000-000000000001';

describe(`migration 017, outbound events' traces (${databaseLabel})`, () => {
  let database: OpenTestDatabase & { next: string[] };
  before(async () => {
    database = await migratedBefore('017');
    await database.db.exec(`
      INSERT INTO outbound_events (id, subject_type, subject_id, type, body, created_at, retry_from,
          next_attempt_at) VALUES
        ('msg_before', 'user', '${ANN}', 'tier.changed', '{"tier":"pro"}', '2026-11-01T10:00:00Z',
          '2026-11-01T10:00:00Z', '2026-11-01T10:00:00Z');`);
  });
  after(() => database.close());

  test('applies after the earlier ones; an event from before is claimed as before, with no trace', async () => {
    assert.deepEqual(await migrate(database.db), database.next);
    const now = new Date('2026-11-01T10:00:01Z');
    const claimed = await createOutbox(database.db, 'free').claim('holder', now, 60_000, 10);
    assert.deepEqual(
      claimed.map(({ id, type, body, attempt, traceParent }) => ({
        id,
        type,
        body,
        attempt,
        traceParent,
      })),
      [
        {
          id: 'msg_before',
          type: 'tier.changed',
          body: '{"tier":"pro"}',
          attempt: 1,
          traceParent: null,
        },
      ],
    );
  });
});
