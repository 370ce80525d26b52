// The ledger's size, measured: a million event records in a database of their own (the service's
// migrations, its indexes), created over the last 70 days, then retention at 35 days through the
// service's own ledger adapter (batches of 1,000), then ten more cycles of what the following five
// weeks bring at the same rate (3.5 days of new records, retention moved on by as much, a vacuum as
// autovacuum would run). Reported: rows, bytes per million events (table and each index), what
// retention deleted and how long its longest batch took (how long it held its row locks), and the
// size once the records kept are steady (it must not grow past the size before retention: the
// space freed is reused, so the ledger stays bounded).
import { randomBytes } from 'node:crypto';
import { createEventLedger } from '../../src/adapters/database/event-ledger.ts';
import { migrate } from '../../src/adapters/database/migrate.ts';
import { openPostgres } from '../../src/adapters/database/postgres.ts';
import type { Database } from '../../src/adapters/database/sql-client.ts';
import { createDatabase } from './database.ts';
import type { Measurement } from './scenarios.ts';

const DAY_S = 86_400;
const RETENTION_DAYS = 35;

/** `count` records created evenly over [fromDaysAgo, toDaysAgo), with Stripe-like ids and types. */
async function insertEvents(db: Database, count: number, fromDaysAgo: number, toDaysAgo: number) {
  const chunk = 100_000;
  for (let done = 0; done < count; done += chunk) {
    const n = Math.min(chunk, count - done);
    await db.query(
      `INSERT INTO webhook_events (id, type, livemode, outcome, event_created, processed_at)
       SELECT 'evt_1' || substr(md5($1 || i), 1, 23),
              (ARRAY['customer.subscription.updated', 'invoice.paid', 'invoice.created', 'customer.subscription.created', 'checkout.session.completed', 'invoice.finalized'])[1 + i % 6],
              false, CASE WHEN i % 3 = 0 THEN 'ignored' ELSE 'processed' END, t, t + interval '2 seconds'
       FROM generate_series($2::int, $3::int) AS i,
            LATERAL (SELECT now() - ($4::float8 - ($4::float8 - $5::float8) * i / $6::float8) * interval '1 day' AS t) AS at`,
      [randomBytes(4).toString('hex'), done, done + n - 1, fromDaysAgo, toDaysAgo, count],
    );
  }
}

async function sizes(db: Database) {
  const [row] = await db.query<{
    rows: number;
    heap: string;
    pkey: string;
    created: string;
    total: string;
  }>(
    `SELECT (SELECT count(*)::int FROM webhook_events) AS rows,
            pg_table_size('webhook_events') AS heap,
            pg_relation_size('webhook_events_pkey') AS pkey,
            pg_relation_size('webhook_events_event_created') AS created,
            pg_total_relation_size('webhook_events') AS total`,
  );
  return {
    rows: row!.rows,
    heap: Number(row!.heap),
    pkey: Number(row!.pkey),
    created: Number(row!.created),
    total: Number(row!.total),
  };
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MB`;

export async function ledgerSize(serverUrl: string, million: number): Promise<Measurement> {
  const own = await createDatabase(serverUrl, `bench_ledger_${randomBytes(4).toString('hex')}`);
  const db = openPostgres(own.url, { poolSize: 2 });
  try {
    await migrate(db);
    const events = Math.round(million * 1_000_000);
    await insertEvents(db, events, 70, 0);
    await db.exec('VACUUM ANALYZE webhook_events');
    const full = await sizes(db);
    // Retention through the service's adapter, timing each batch (each a statement of its own).
    let longest = 0;
    const timed: Database = {
      ...db,
      query: async (sql, params) => {
        const started = performance.now();
        try {
          return await db.query(sql, params);
        } finally {
          longest = Math.max(longest, performance.now() - started);
        }
      },
    };
    const forget = (cutoffDaysAgo: number) =>
      createEventLedger(timed, 'dropped').forgetEvents(
        new Date(Date.now() - cutoffDaysAgo * DAY_S * 1000),
        new AbortController().signal,
      );
    const started = performance.now();
    const deleted = await forget(RETENTION_DAYS);
    const wallMs = performance.now() - started;
    await db.exec('VACUUM webhook_events'); // what autovacuum does after such deletes
    // The weeks after, in steps of 3.5 days at the same rate: new records, retention moved on.
    const STEP_DAYS = 3.5;
    const perStep = Math.round((events * STEP_DAYS) / 70);
    const steady: number[] = [];
    for (let step = 1; step <= 10; step++) {
      await insertEvents(db, perStep, -STEP_DAYS * (step - 1), -STEP_DAYS * step);
      await forget(RETENTION_DAYS - STEP_DAYS * step);
      await db.exec('VACUUM ANALYZE webhook_events');
      steady.push((await sizes(db)).total);
    }
    const last = await sizes(db);
    const perMillion = (bytes: number) => (bytes * 1_000_000) / full.rows;
    const problems =
      last.total > full.total * 1.1
        ? [`the ledger grew to ${mb(last.total)} from ${mb(full.total)}: freed space not reused`]
        : [];
    return {
      requests: deleted,
      durationS: wallMs / 1000,
      rps: deleted / (wallMs / 1000),
      p50: NaN,
      p99: longest,
      non2xx: 0,
      wallMs,
      rssMb: 0,
      rssStartMb: 0,
      cpu: { server: 0, postgres: 0, load: 0 },
      calls: {},
      problems,
      notes: [
        `${full.rows} records (70 days): table ${mb(full.heap)}, primary key ${mb(full.pkey)}, event_created index ${mb(full.created)}; ${mb(perMillion(full.total))} per million events in all (${Math.round(full.total / full.rows)} bytes each)`,
        `retention at ${RETENTION_DAYS} days deleted ${deleted} in ${(wallMs / 1000).toFixed(1)} s, batches of 1,000, the longest ${longest.toFixed(0)} ms`,
        `then 10 steps of ${perStep} new records and retention: ${last.rows} kept, ${steady.map(mb).join(', ')} in all (${mb(full.total)} before retention)`,
      ],
    };
  } finally {
    await db.close();
    await own.drop();
  }
}
