// Through a transaction-pooling PgBouncer (Debian's, as managed PostgreSQL is usually reached): a
// server connection serves one client for one transaction, then another. Two service instances
// start on one database, concurrent first requests on both are all answered, an operator command
// writes, and the pooler refusing a connection is the database being unavailable, not a failure.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDatabase } from '../../src/adapters/database/open.ts';
import { DatabaseUnavailableError } from '../../src/adapters/database/sql-client.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { onPostgres } from '../helpers/database.ts';
import { pgbouncerMissing, startPgBouncer, type PrivatePgBouncer } from '../helpers/pgbouncer.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

const FIRST_REQUESTS = 50;

describe(
  'two instances through a transaction-pooling PgBouncer',
  { skip: (!onPostgres && 'needs PostgreSQL') || pgbouncerMissing },
  () => {
    let t: TestApp;
    let bouncer: PrivatePgBouncer;
    let pooledEnv: Record<string, string>;
    const services: ServiceProcess[] = [];
    before(async () => {
      t = await buildTestApp();
      bouncer = await startPgBouncer(process.env.TEST_POSTGRES_URL!);
      pooledEnv = { ...t.env, DATABASE_URL: bouncer.through(t.env.DATABASE_URL!) };
      // One after the other, so that `after` stops whichever did start when the other fails.
      for (let i = 0; i < 2; i++) services.push(await startServiceProcess(pooledEnv));
    });
    after(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await t?.close();
      await bouncer?.stop();
    });

    test('both started, each on a pool of its own through the bouncer', async () => {
      assert.equal(services.length, 2);
      const database = new URL(t.env.DATABASE_URL!).pathname.slice(1);
      const pools = await bouncer.admin('SHOW POOLS');
      assert.equal(pools.find((pool) => pool.database === database)?.pool_mode, 'transaction');
    });

    test(`${FIRST_REQUESTS} concurrent first requests of new users, split across both: all answered`, async () => {
      const tokens = await Promise.all(
        Array.from({ length: FIRST_REQUESTS }, (_, i) => t.token(`pooled-${i}`)),
      );
      const responses = await Promise.all(
        tokens.map((token, i) =>
          fetch(`${services[i % 2]!.url}/api/v1/users/me`, {
            headers: { authorization: `Bearer ${token}` },
          }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      assert.deepEqual(
        statuses.filter((status) => status !== 200),
        [],
        `statuses: ${statuses.join(' ')}`,
      );
      // With no setting, statements start named; the bouncer's refusal is said at most once each.
      for (const service of services) {
        const said = service
          .logged()
          .filter((entry) => /unnamed from now on/.test(entry.msg ?? ''));
        assert.ok(said.length <= 1, `said ${said.length} times`);
      }
    });

    test('an operator command writes through it', async () => {
      const run = await runCli(['set-plan', 'pooled-0', 'team'], pooledEnv);
      assert.equal(run.code, 0, run.stderr);
      const [user] = await t.composition.db.query<{ plan: string }>(
        "SELECT plan FROM users WHERE idp_id = 'pooled-0'",
      );
      assert.equal(user?.plan, 'team');
    });

    test('the bouncer refusing connections is the database unavailable (503), not an error', async () => {
      const database = new URL(t.env.DATABASE_URL!).pathname.slice(1);
      const db = await openDatabase({
        kind: 'postgres',
        url: pooledEnv.DATABASE_URL!,
        poolSize: 1,
      });
      await bouncer.admin(`DISABLE ${database}`);
      try {
        await assert.rejects(db.query('SELECT 1'), (error: unknown) => {
          assert.ok(error instanceof DatabaseUnavailableError, String(error));
          const { code, message } = error.cause as { code: string; message: string };
          assert.deepEqual([code, message], ['08P01', `database "${database}" is disabled`]);
          return true;
        });
      } finally {
        await bouncer.admin(`ENABLE ${database}`);
        await db.close();
      }
    });
  },
);
