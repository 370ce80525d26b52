// One open checkout session per subject, decided by the database: a new user's identical
// checkouts, sent at once to two service processes sharing one PostgreSQL, all get one session (so
// one trial on offer), and the database holds one open session for the user.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const CHECKOUTS = 12;

describe(
  'one open checkout across two processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    let services: ServiceProcess[] = [];
    before(async () => {
      const trials = { BILLING_TRIAL_DAYS: '14', BILLING_TRIAL_REQUIRES_CARD: 'false' };
      t = await buildTestApp(trials);
      const env = {
        ...t.env,
        PAYMENTS_API_KEY: t.config.payments.apiKey,
        PAYMENTS_API_BASE: t.composition.simulatorUrl!,
        PAYMENTS_WEBHOOK_SECRET: 'whsec_local_simulator',
        BILLING_PRICES: 'pro=price_sim_pro,team=price_sim_team',
      };
      services = await Promise.all([startServiceProcess(env), startServiceProcess(env)]);
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
