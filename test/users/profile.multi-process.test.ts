// Concurrent first requests on two real service processes sharing one PostgreSQL database create
// exactly one user, and every request gets it: the promise rests on the database, not on a process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcesses, type ServiceProcess } from '../helpers/service-process.ts';

const REQUESTS = 50;

describe(
  'profile on two service processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    const services: ServiceProcess[] = [];
    before(async () => {
      t = await buildTestApp();
      await startServiceProcesses(services, [t.env, t.env]);
    });
    after(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await t?.close();
    });

    /** GET /users/me on the i-th request's process, alternating between the two. */
    const me = (i: number, token: string) =>
      fetch(`${services[i % services.length]!.url}/api/v1/users/me`, {
        headers: { authorization: `Bearer ${token}` },
      });

    test(`${REQUESTS} concurrent first requests for one subject, split across both, create one user`, async () => {
      // Warm both processes (database connections, key import) so the burst reaches the database at once.
      const warmUp = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => me(i, await t.token(`warm-up-${i}`))),
      );
      assert.deepEqual([...new Set(warmUp.map((response) => response.status))], [200]);

      const token = await t.token('grace', 'grace@example.com');
      const responses = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => me(i, token)));
      assert.deepEqual([...new Set(responses.map((response) => response.status))], [200]);
      const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
        id: string;
        idp_id: string;
      }[];
      assert.equal(new Set(bodies.map((body) => body.id)).size, 1);
      assert.equal(bodies[0]!.idp_id, 'grace');
      const rows = await t.composition.db.query<{ id: string }>(
        "SELECT id FROM users WHERE idp_id = 'grace'",
      );
      assert.deepEqual(
        rows.map((row) => row.id),
        [bodies[0]!.id],
      );
    });
  },
);
