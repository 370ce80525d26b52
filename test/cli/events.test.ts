// `npm run cli -- events list [--failed]` and `events resend <id>`, as an operator runs them beside
// the service: a second process on the same PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, profileOf, type TestApp } from '../helpers/app.ts';
import { startAppReceiver, type AppReceiver } from '../helpers/app-receiver.ts';
import { runCli } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(
  `cli events (${databaseLabel})`,
  { skip: !onPostgres && 'needs PostgreSQL: a second process cannot open the in-memory PGlite' },
  () => {
    let t: TestApp;
    let receiver: AppReceiver;
    before(async () => {
      receiver = await startAppReceiver();
      t = await buildTestApp({
        APP_WEBHOOK_URL: receiver.url,
        APP_WEBHOOK_SECRET: receiver.secret,
      });
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    test('lists the events, the failed ones apart, and sends a failed one again with its id', async () => {
      const user = await profileOf(t, 'cli-ivy');
      await deliver(
        t.app,
        eventOf(
          'customer.subscription.created',
          subscriptionObject({ metadata: { user_id: user.id } }),
        ),
      );
      const [event] = await t.composition.db.query<{ id: string }>(
        'SELECT id FROM outbound_events',
      );
      const listed = await runCli(['events', 'list'], t.env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(
        listed.stdout,
        new RegExp(`^${event!.id} tier.changed user ${user.id} .* pending \\(0 attempt`, 'm'),
      );
      assert.equal((await runCli(['events', 'list', '--failed'], t.env)).stdout, '');
      await t.composition.db.query(
        "UPDATE outbound_events SET state = 'failed', settled_at = now()",
      );
      assert.match(
        (await runCli(['events', 'list', '--failed'], t.env)).stdout,
        new RegExp(event!.id),
      );
      const resent = await runCli(['events', 'resend', event!.id], t.env);
      assert.equal(resent.code, 0, resent.stderr);
      assert.equal(await t.composition.jobs.deliveries!.deliverDue(), 1);
      assert.deepEqual(
        receiver.arrivals.map((a) => a.id),
        [event!.id],
      );
      const unknown = await runCli(['events', 'resend', 'msg_nope'], t.env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no outbound event msg_nope/);
      assert.equal((await runCli(['events', 'show'], t.env)).code, 2);
    });
  },
);
