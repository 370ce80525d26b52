// Graceful shutdown: SIGTERM during load stops accepting, finishes every request it accepted (a
// webhook transaction is never cut halfway) and exits 0 within the bound. "Accepted" is what the
// service itself logged as an incoming request (at debug): each must have its completion logged
// and its answer received. A connection still in the kernel's queue when listening stops is reset
// unseen; a client (or balancer) retries it, and an unacknowledged event is redelivered.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { openDatabase, serveDatabase } from '../../src/adapters/database/open.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';
import { requestOnFreshConnection, type FreshAnswer } from '../helpers/fresh-connection.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import { eventOf, signedHeaders } from '../helpers/stripe-fixtures.ts';

/** Marks the test's own requests in the service's log. */
const OURS = 'from=shutdown-test';

describe(`graceful shutdown (${databaseLabel})`, () => {
  let t: TestApp;
  let service: ServiceProcess;
  before(async () => {
    t = await buildTestApp();
    // On PGlite the process gets the embedded PostgreSQL under the same DATA_DIR.
    service = await startServiceProcess(onPostgres ? t.env : { ...t.env, DATABASE_URL: '' }, {
      logLevel: 'debug',
    });
  });
  after(async () => {
    await service.stop();
    await t.close();
  });

  test('SIGTERM under load: no accepted request lost, every acknowledged event recorded, exit 0', async () => {
    const token = await t.token('shutdown-user');
    const results: FreshAnswer[] = [];
    const acknowledged: string[] = [];
    let refused = false;
    const worker = async (kind: 'me' | 'webhook') => {
      while (!refused) {
        const event = eventOf('customer.created', { id: 'cus_s', object: 'customer' });
        const payload = JSON.stringify(event);
        const result =
          kind === 'me'
            ? await requestOnFreshConnection(`${service.url}/api/v1/users/me?${OURS}`, 'GET', {
                authorization: `Bearer ${token}`,
              })
            : await requestOnFreshConnection(
                `${service.url}/api/v1/webhooks/payments?${OURS}`,
                'POST',
                signedHeaders(payload, 'whsec_local_simulator'),
                payload,
              );
        if ('error' in result && result.error === 'ECONNREFUSED') refused = true;
        else results.push(result);
        if ('status' in result && result.status === 200 && kind === 'webhook')
          acknowledged.push(event.id);
      }
    };
    const load = Promise.all([worker('me'), worker('me'), worker('webhook'), worker('webhook')]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const stoppedAt = Date.now();
    service.child.kill('SIGTERM');
    const [code] = await once(service.child, 'exit');
    await load;

    assert.equal(code, 0);
    assert.ok(Date.now() - stoppedAt < 12_000);
    const logged = service.logged();
    // The test's own requests only: the embedded simulator's deliveries are logged too.
    const ours = (entry: (typeof logged)[number]) =>
      String(entry.url ?? entry.req?.url).endsWith(OURS);
    const ids = (msg: string) =>
      new Set(
        logged
          .filter((entry) => entry.msg === msg && entry.reqId && ours(entry))
          .map((entry) => entry.reqId),
      );
    const incoming = ids('incoming request');
    const completed = ids('request completed');
    assert.ok(incoming.size >= completed.size, 'arrivals are logged at debug');
    assert.deepEqual(
      [...incoming].filter((id) => !completed.has(id)),
      [],
      'every accepted request completed',
    );
    const answered = results.filter((r) => 'status' in r);
    // While closing, Fastify answers 503 before routing (unlogged); the rest are logged.
    assert.ok(
      answered.every((r) => r.status === 200 || r.status === 503),
      JSON.stringify(answered.filter((r) => r.status !== 200)),
    );
    assert.equal(
      answered.filter((r) => r.status === 200).length,
      completed.size,
      'every completed request reached its client',
    );
    assert.ok(acknowledged.length > 0);

    // The stopped service gave its embedded database up: this process can own it now.
    const embedded = onPostgres
      ? null
      : await serveDatabase({ kind: 'embedded', dataDir: t.env.DATA_DIR!, poolSize: 1 });
    const db = embedded ? await openDatabase(embedded.reach) : t.composition.db;
    try {
      const rows = await db.query<{ id: string }>(
        'SELECT id FROM webhook_events WHERE id = ANY($1)',
        [acknowledged],
      );
      assert.equal(rows.length, acknowledged.length);
    } finally {
      if (embedded) await db.close().then(embedded.stop);
    }
    const reset = results.length - answered.length;
    console.log(
      `# ${databaseLabel}: ${answered.length} requests answered, ${reset} reset before the service saw them, ${acknowledged.length} events acknowledged and recorded, exit ${Date.now() - stoppedAt} ms after SIGTERM`,
    );
  });
});
