// A burst of thin events for one subscription: Stripe sends a thin `v1.customer.subscription.updated`
// for each change, the changes came over three seconds, and the notices arrive together some 20 s
// later (a destination catching up). Each names the subscription and carries none of it, so it is
// read from the provider; any read sent after the first notice arrived contains every change up
// to then, so the whole burst costs one read on one instance, and the stored state is the
// provider's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { databaseLabel } from '../helpers/database.ts';
import {
  startDeliveringProvider,
  subscribe,
  THIN_SECRET,
  type DeliveringProvider,
} from '../helpers/delivering-provider.ts';
import { signedHeaders } from '../helpers/stripe-fixtures.ts';

const NOTICES = 20;

/** A thin notice of a change to the subscription, made at `created` (unix ms). */
const notice = (id: string, subscription: string, created: number) =>
  JSON.stringify({
    id,
    object: 'v2.core.event',
    type: 'v1.customer.subscription.updated',
    livemode: false,
    created: new Date(created).toISOString(),
    related_object: {
      id: subscription,
      type: 'subscription',
      url: `/v1/subscriptions/${subscription}`,
    },
  });

describe(`a burst of thin events for one subscription (${databaseLabel})`, () => {
  let p: DeliveringProvider;
  before(async () => {
    p = await startDeliveringProvider('thin');
  });
  after(() => p.close());

  test('20 notices made over 3 s, 20 s old, sent at once: one read, the provider state', async () => {
    // The service last heard of the subscription a minute ago (on the provider's clock)...
    p.front.clockOffsetSeconds = -60;
    const id = await subscribe(p, 'thin-burst');
    p.front.clockOffsetSeconds = 0;
    const now = Date.now();
    // ...and the provider changed it since. Its own notices wait: only the burst reaches the service.
    await p.holdDeliveries(async () => {
      await p.sim(`subscriptions/${id}/cancel-at-period-end`);
      const bodies = Array.from({ length: NOTICES }, (_, i) =>
        notice(`evt_thin_burst_${i}`, id, now - 23_000 + (i * 3_000) / NOTICES),
      );
      const since = p.front.requests.length;
      const answers = await Promise.all(
        bodies.map((payload) =>
          p.t.app.inject({
            method: 'POST',
            url: '/api/v1/webhooks/payments',
            payload,
            headers: signedHeaders(payload, THIN_SECRET),
          }),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => answer.json()),
        bodies.map(() => ({ status: 'processed' })),
      );
      const reads = p.front.requests
        .slice(since)
        .filter((r) => r.method === 'GET' && r.path === `/v1/subscriptions/${id}`);
      assert.equal(reads.length, 1, `${reads.length} reads of the subscription for ${NOTICES}`);
      const truth = await p.direct.subscriptions.retrieve(id);
      assert.equal(truth.cancel_at_period_end, true);
      const [stored] = await p.t.composition.db.query<{
        status: string;
        cancel_at_period_end: boolean;
      }>('SELECT status, cancel_at_period_end FROM subscriptions WHERE id = $1', [id]);
      assert.deepEqual(
        { ...stored },
        { status: truth.status, cancel_at_period_end: truth.cancel_at_period_end },
      );
    });
  });
});
