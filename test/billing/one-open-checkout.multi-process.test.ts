// One open checkout session per subject, decided by the database: a new user's identical
// checkouts, sent at once to two service processes sharing one PostgreSQL, all get one session (so
// one trial on offer), and the database holds one open session for the user.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { TRIAL_WITHOUT_CARD } from '../helpers/checkout.ts';
import { onPostgres } from '../helpers/database.ts';
import {
  besideTestApp,
  startServiceProcesses,
  type ServiceProcess,
} from '../helpers/service-process.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const CHECKOUTS = 12;

describe(
  'one open checkout across two processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    const services: ServiceProcess[] = [];
    before(async () => {
      t = await buildTestApp(TRIAL_WITHOUT_CARD);
      const env = besideTestApp(t);
      await startServiceProcesses(services, [env, env]);
    });
    after(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await t?.close();
    });

    const checkoutsAtOnce = async (sub: string) => {
      const token = await t.token(sub);
      const responses = await Promise.all(
        Array.from({ length: CHECKOUTS }, (_, i) =>
          fetch(`${services[i % 2]!.url}/api/v1/billing/checkout`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: '{}',
          }),
        ),
      );
      assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
      return new Set(
        await Promise.all(responses.map(async (r) => ((await r.json()) as { url: string }).url)),
      );
    };

    test(`${CHECKOUTS} identical checkouts at once over two instances: one session`, async () => {
      const known = 'one-open-known';
      await profileId(t, known);
      for (const sub of ['one-open', known]) {
        const urls = await checkoutsAtOnce(sub);
        assert.equal(urls.size, 1, `distinct sessions: ${[...urls].join(', ')}`);
        const id = [...urls][0]!.split('/').pop()!;
        const { customer } = await simulatorClient(t).checkout.sessions.retrieve(id);
        const open = await simulatorClient(t).checkout.sessions.list({
          customer: customer as string,
          status: 'open',
        });
        assert.deepEqual(
          open.data.map((s) => s.id),
          [id],
        );
        const rows = await t.composition.db.query<{ id: string }>(
          "SELECT id FROM checkout_sessions WHERE user_id = $1 AND status = 'open'",
          [await profileId(t, sub)],
        );
        assert.deepEqual(rows, [{ id }]);
      }
    });
  },
);
