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
  control,
  startDeliveringProvider,
  subscribe,
  type DeliveringProvider,
} from '../helpers/delivering-provider.ts';

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
