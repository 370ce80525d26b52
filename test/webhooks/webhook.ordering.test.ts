// Stripe delivers at least once and in no particular order. A subscription's whole history,
// delivered in shuffled orders with duplicates, must end in the same state and tier every time:
// an older event never overwrites newer state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  deliver,
  eventOf,
  invoiceObject,
  subscriptionObject,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';

type Step = [type: string, changes: Partial<Stripe.Subscription> & { priceId?: string }];

const HISTORIES: Record<
  string,
  { steps: Step[]; status: string; price: string; cancelAtPeriodEnd: boolean; tier: string }
> = {
  'upgrade, failed payment, recovery': {
    steps: [
      ['customer.subscription.created', { status: 'incomplete' }],
      ['customer.subscription.updated', { status: 'active' }],
      ['customer.subscription.updated', { status: 'active', priceId: 'price_sim_team' }],
      ['customer.subscription.updated', { status: 'past_due', priceId: 'price_sim_team' }],
      ['customer.subscription.updated', { status: 'active', priceId: 'price_sim_team' }],
    ],
    status: 'active',
    price: 'price_sim_team',
    cancelAtPeriodEnd: false,
    tier: 'team',
  },
  'cancel at period end, undo, then cancel now': {
    steps: [
      ['customer.subscription.created', { status: 'active' }],
      ['customer.subscription.updated', { status: 'active', cancel_at_period_end: true }],
      ['customer.subscription.updated', { status: 'active', cancel_at_period_end: false }],
      ['customer.subscription.deleted', { status: 'canceled' }],
    ],
    status: 'canceled',
    price: 'price_sim_pro',
    cancelAtPeriodEnd: false,
    tier: 'free',
  },
};

function shuffled<T>(items: T[], seed: number): T[] {
  const result = [...items];
  let state = seed;
  for (let i = result.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = state % (i + 1);
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

describe(`webhook ordering (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  for (const [name, history] of Object.entries(HISTORIES)) {
    test(`${name}: 8 shuffled deliveries with duplicates end in the same state`, async () => {
      for (let seed = 1; seed <= 8; seed++) {
        const sub = `ordering-${name.length}-${seed}`;
        const user = (
          await t.app.inject({
            method: 'GET',
            url: '/api/v1/users/me',
            headers: bearer(await t.token(sub)),
          })
        ).json();
        const base = subscriptionObject({ metadata: { user_id: user.id } });
        const start = Math.floor(Date.now() / 1000) - 1000;
        const events: FixtureEvent[] = history.steps.map(([type, { priceId, ...changes }], i) => {
          const snapshot = subscriptionObject({
            id: base.id,
            customer: base.customer,
            created: base.created,
            metadata: base.metadata,
            priceId,
            ...changes,
          });
          return eventOf(type, snapshot, { created: start + i * 10 });
        });
        events.push(
          eventOf('invoice.paid', invoiceObject(base.id, String(base.customer)), {
            created: start + 15,
          }),
        );
        const deliveries = shuffled([...events, ...events.filter((_, i) => i % 2 === 0)], seed);
        for (const event of deliveries) assert.equal((await deliver(t.app, event)).statusCode, 200);

        const [row] = await t.composition.db.query<{
          status: string;
          price_id: string;
          cancel_at_period_end: boolean;
          payment_failed_at: Date | null;
        }>(
          'SELECT status, price_id, cancel_at_period_end, payment_failed_at FROM subscriptions WHERE id = $1',
          [base.id],
        );
        const label = `${name}, seed ${seed}`;
        assert.equal(row!.status, history.status, label);
        assert.equal(row!.price_id, history.price, label);
        assert.equal(row!.cancel_at_period_end, history.cancelAtPeriodEnd, label);
        assert.equal(row!.payment_failed_at, null, label);
        const profile = (
          await t.app.inject({
            method: 'GET',
            url: '/api/v1/users/me',
            headers: bearer(await t.token(sub)),
          })
        ).json();
        assert.equal(profile.tier, history.tier, label);
      }
    });
  }
});
