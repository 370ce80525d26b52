// Credits on two real service processes sharing one PostgreSQL (contract section 14: "every credit
// added or spent exactly once, never below zero, on any number of instances"):
// - a balance of 50 (the operator's `credits adjust +50`), then 60 concurrent spends of 1 with
//   distinct keys split between both: exactly 50 spent, 10 refused (402), the balance 0, 50 spend
//   entries whose balance_after never goes below zero and follows from the entry before; the
//   application told `credits.depleted` once; a subject with nothing, refused on both at once,
//   told once too;
// - 20 concurrent spends with one key over both: one answer, status and body, one spend;
// - one pack's checkout.session.completed delivered concurrently to both, again and again, with a
//   second event of the same session and its async_payment_succeeded: the credits added once.
// The free tier grants nothing here (an entitlements file of our own), so each balance is exactly
// what the test made.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { SIMULATOR_CREDIT_PACKS } from '../../src/config/defaults.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { runCli } from '../helpers/cli.ts';
import { onPostgres } from '../helpers/database.ts';
import {
  besideTestApp,
  startServiceProcesses,
  type ServiceProcess,
} from '../helpers/service-process.ts';
import {
  checkoutSessionObject,
  eventOf,
  signedHeaders,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';

interface Entry {
  id: string;
  kind: string;
  amount: number;
  balance_after: number;
}

describe(
  'credits on two service processes (PostgreSQL)',
  { skip: !onPostgres && 'needs PostgreSQL' },
  () => {
    let t: TestApp;
    let receiver: AppReceiver;
    let dir: string;
    let env: Record<string, string>;
    const services: ServiceProcess[] = [];
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'credits-multi-'));
      const entitlements = join(dir, 'entitlements.json');
      await writeFile(entitlements, JSON.stringify({ free: { features: ['core'] } }));
      receiver = await startAppReceiver();
      t = await buildTestApp({
        BILLING_ENTITLEMENTS_FILE: entitlements,
        APP_WEBHOOK_URL: receiver.url,
        APP_WEBHOOK_SECRET: receiver.secret,
      });
      // The instances share the test app's simulator, which sells its own packs.
      env = { ...besideTestApp(t), BILLING_CREDIT_PACKS: SIMULATOR_CREDIT_PACKS };
      await startServiceProcesses(services, [env, env]);
    });
    after(async () => {
      await Promise.all(services.map((service) => service.stop()));
      await t?.close();
      await receiver?.close();
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    const call = async (i: number, path: string, token: string, body?: unknown) => {
      const response = await fetch(`${services[i % 2]!.url}/api/v1/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const serviceToken = () =>
      t.token('backend', undefined, {
        email: undefined,
        extra: {
          client_id: DEV_SERVICE_CLIENT,
          scope: 'billing:credits',
          gty: 'client-credentials',
        },
      });

    /** The user's id, made on its first request (to the first instance). */
    const userId = async (sub: string) => {
      const me = await call(0, 'users/me', await t.token(sub));
      assert.equal(me.status, 200);
      return me.body.id as string;
    };

    const credits = async (i: number, sub: string) => {
      const read = await call(i, 'credits', await t.token(sub));
      assert.equal(read.status, 200, JSON.stringify(read.body));
      return read.body as { balance: number; purchased: number; grant: unknown };
    };

    /** Every entry, oldest first; balance_after never below zero and following from the one before. */
    const consistentLedger = async (sub: string) => {
      const read = await call(1, 'credits/ledger?limit=200', await t.token(sub));
      assert.equal(read.status, 200);
      assert.equal(read.body.next, null);
      // By id, the order the balance's lock gave them (the API's order: credits.ledger.test.ts).
      const entries = (read.body.entries as Entry[]).sort((a, b) => Number(a.id) - Number(b.id));
      let balance = 0;
      for (const entry of entries) {
        balance += entry.amount;
        assert.ok(entry.balance_after >= 0, JSON.stringify(entry));
        assert.equal(entry.balance_after, balance, JSON.stringify(entry));
      }
      return entries;
    };

    const outbound = async (subjectId: string, type: string) =>
      (
        await t.composition.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM outbound_events WHERE subject_id = $1 AND type = $2',
          [subjectId, type],
        )
      )[0]!.n;

    const deliverTo = async (i: number, event: FixtureEvent) => {
      const payload = JSON.stringify(event);
      const response = await fetch(`${services[i % 2]!.url}/api/v1/webhooks/payments`, {
        method: 'POST',
        body: payload,
        headers: signedHeaders(payload, 'whsec_local_simulator'),
      });
      return response.status;
    };

    const packSession = (id: string) =>
      checkoutSessionObject({
        mode: 'payment',
        subscription: null,
        client_reference_id: id,
        metadata: { user_id: id, credit_pack: 'small' },
        payment_intent: `pi_multi_${id.slice(0, 8)}`,
      });

    test('a balance of 50, 60 concurrent spends of 1 over both instances: 50 spent, 10 refused, never below zero', async () => {
      const id = await userId('mp-spender');
      const adjusted = await runCli(
        ['credits', 'adjust', 'user:mp-spender', '+50', '--reason', 'multi-process test'],
        env,
      );
      assert.equal(adjusted.code, 0, adjusted.stderr);
      assert.match(adjusted.stdout, /balance 50\b/);
      assert.equal((await credits(0, 'mp-spender')).balance, 50);
      const token = await serviceToken();
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          call(i, 'credits/spend', token, {
            subject: { type: 'user', idp_id: 'mp-spender' },
            amount: 1,
            idempotency_key: `mp-spend-${i}`,
          }),
        ),
      );
      const spent = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 402);
      assert.equal(spent.length, 50, JSON.stringify(answers.map((a) => a.status)));
      assert.equal(refused.length, 10);
      assert.deepEqual(
        spent.map((a) => a.body.balance as number).sort((a, b) => a - b),
        Array.from({ length: 50 }, (_, i) => i),
        'each spend saw its own balance: none lost, none twice',
      );
      for (const answer of refused) assert.equal(answer.body.balance, 0);
      for (const i of [0, 1]) {
        const read = await credits(i, 'mp-spender');
        assert.equal(read.balance, 0);
        assert.equal(read.purchased, 0);
      }
      const entries = await consistentLedger('mp-spender');
      assert.deepEqual(
        entries.map((e) => e.kind),
        ['adjustment', ...Array.from({ length: 50 }, () => 'spend')],
      );
      assert.ok(entries.slice(1).every((e) => e.amount === -1));
      const [keys] = await t.composition.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM credit_spends WHERE subject_id = $1 AND idempotency_key LIKE 'mp-spend-%'",
        [id],
      );
      assert.equal(keys!.n, 60, 'every answer kept under its key');
      assert.equal(await outbound(id, 'credits.depleted'), 1, 'told once that it ran out');
    });

    test('a subject with nothing, refused on both instances at once: told it ran out once', async () => {
      const id = await userId('mp-empty');
      const token = await serviceToken();
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call(i, 'credits/spend', token, {
            subject: { type: 'user', idp_id: 'mp-empty' },
            amount: 1,
            idempotency_key: `mp-empty-${i}`,
          }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => [a.status, a.body.balance]),
        Array.from({ length: 10 }, () => [402, 0]),
      );
      assert.equal(await outbound(id, 'credits.depleted'), 1);
    });

    test('20 concurrent spends with one key over both instances: one answer, one spend', async () => {
      const id = await userId('mp-once');
      assert.equal(await deliverTo(0, eventOf('checkout.session.completed', packSession(id))), 200);
      assert.equal((await credits(0, 'mp-once')).balance, 500);
      const token = await serviceToken();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(i, 'credits/spend', token, {
            subject: { type: 'user', idp_id: 'mp-once' },
            amount: 7,
            idempotency_key: 'mp-one-key',
            reason: 'one request, sent 20 times',
          }),
        ),
      );
      for (const answer of answers) {
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(answer.body, { balance: 493 });
      }
      assert.equal((await credits(1, 'mp-once')).balance, 493);
      const entries = await consistentLedger('mp-once');
      assert.deepEqual(
        entries.map((e) => [e.kind, e.amount]),
        [
          ['purchase', 500],
          ['spend', -7],
        ],
      );
    });

    test("one pack's payment delivered concurrently to both instances, in several events: added once", async () => {
      const id = await userId('mp-buyer');
      const session = packSession(id);
      const completed = eventOf('checkout.session.completed', session);
      const twin = { ...completed, id: `${completed.id}_twin` };
      const succeeded = eventOf('checkout.session.async_payment_succeeded', session);
      const events = [completed, twin, succeeded];
      const statuses = await Promise.all(
        Array.from({ length: 18 }, (_, i) => deliverTo(i, events[i % 3]!)),
      );
      assert.deepEqual([...new Set(statuses)], [200]);
      for (const i of [0, 1]) {
        const read = await credits(i, 'mp-buyer');
        assert.equal(read.purchased, 500);
        assert.equal(read.balance, 500);
      }
      const entries = await consistentLedger('mp-buyer');
      assert.deepEqual(
        entries.map((e) => [e.kind, e.amount]),
        [['purchase', 500]],
      );
      const [purchases] = await t.composition.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM credit_purchases WHERE subject_id = $1',
        [id],
      );
      assert.equal(purchases!.n, 1);
      assert.equal(await outbound(id, 'credits.purchased'), 1);
    });
  },
);
