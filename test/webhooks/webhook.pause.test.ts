// The tier through a pause, end to end: the real simulator pauses and resumes subscriptions (on
// demand through the API, and by itself after a failed renewal when the account is set to) and
// delivers what Stripe sends (customer.subscription.updated with .paused or .resumed, and the
// invoice events), as snapshot events and as thin ones. The rule: a paused subscription gives the
// free tier until it is resumed, whatever paused it; a pause after a failed payment has no grace
// period (only past_due has one).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer } from '../helpers/app.ts';
import { tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  startDeliveringProvider,
  type DeliveringProvider,
} from '../helpers/delivering-provider.ts';

async function subscribe(p: DeliveringProvider, sub: string): Promise<string> {
  const checkout = await p.t.app.inject({
    method: 'POST',
    url: '/api/v1/billing/checkout',
    headers: bearer(await p.t.token(sub)),
    payload: {},
  });
  assert.equal(checkout.statusCode, 200, checkout.body);
  const paid = await fetch(`${checkout.json().url}/pay`, { method: 'POST', redirect: 'manual' });
  assert.equal(paid.status, 303);
  const sessionId = new URL(checkout.json().url).pathname.split('/').at(-1)!;
  return (await p.direct.checkout.sessions.retrieve(sessionId)).subscription as string;
}

/** A lifecycle control; answers once its events were delivered. Returns their types. */
async function control(p: DeliveringProvider, id: string, action: string): Promise<string[]> {
  const response = await p.sim(`subscriptions/${id}/${action}`);
  assert.equal(response.status, 200, await response.clone().text());
  const { events } = (await response.json()) as { events: { type: string; delivered: boolean }[] };
  assert.ok(
    events.every((e) => e.delivered),
    JSON.stringify(events),
  );
  return events.map((e) => e.type);
}

const stored = async (p: DeliveringProvider, id: string) =>
  (
    await p.t.composition.db.query<{ status: string }>(
      'SELECT status FROM subscriptions WHERE id = $1',
      [id],
    )
  )[0]?.status;

for (const payload of ['snapshot', 'thin'] as const) {
  describe(`the tier through a pause, ${payload} events (${databaseLabel})`, () => {
    let p: DeliveringProvider;
    before(async () => {
      p = await startDeliveringProvider(payload);
    });
    after(() => p.close());

    test('paused on demand: free until resumed, then the paid tier again', async () => {
      const sub = `${payload}-pause`;
      const id = await subscribe(p, sub);
      assert.equal(await tierOf(p.t, sub), 'pro');

      assert.deepEqual(await control(p, id, 'pause'), [
        'customer.subscription.updated',
        'customer.subscription.paused',
      ]);
      assert.equal(await stored(p, id), 'paused');
      assert.equal(await tierOf(p.t, sub), 'free');
      const blocked = await p.t.app.inject({
        method: 'POST',
        url: '/api/v1/billing/checkout',
        headers: bearer(await p.t.token(sub)),
        payload: {},
      });
      assert.equal(blocked.statusCode, 200, 'a paused subscription does not block a checkout');

      assert.deepEqual(await control(p, id, 'resume'), [
        'invoice.paid',
        'customer.subscription.updated',
        'customer.subscription.resumed',
      ]);
      assert.equal(await stored(p, id), 'active');
      assert.equal(await tierOf(p.t, sub), 'pro');
    });

    test('paused after a failed renewal (the account setting): free at once, no grace; paying the invoice resumes', async () => {
      assert.equal((await p.sim('settings', 'pause_on_payment_failure=true')).status, 200);
      try {
        const sub = `${payload}-auto-pause`;
        const id = await subscribe(p, sub);
        assert.deepEqual(await control(p, id, 'fail-renewal'), [
          'invoice.payment_failed',
          'customer.subscription.updated',
          'customer.subscription.paused',
        ]);
        assert.equal(await stored(p, id), 'paused');
        assert.equal(await tierOf(p.t, sub), 'free', 'no grace period for a paused subscription');

        assert.deepEqual(await control(p, id, 'renew'), [
          'invoice.paid',
          'customer.subscription.updated',
          'customer.subscription.resumed',
        ]);
        assert.equal(await stored(p, id), 'active');
        assert.equal(await tierOf(p.t, sub), 'pro');
      } finally {
        await p.sim('settings', 'pause_on_payment_failure=false');
      }
    });
  });
}
