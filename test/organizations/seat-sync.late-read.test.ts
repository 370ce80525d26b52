// The seat engine against a provider read that left the provider a second after its data (a busy
// provider dates its answer as it sends it): a delivery's read of the subscription, taken before
// the engine's push and answered after the push's own event, is stored over the push's answer as
// the newer state, the answer is discarded as older, and the push's event is then older than what
// is stored. Nothing changed the stored quantity, so no trigger marks the organisation: the engine
// must look again by itself, and the provider and the stored quantity end at the reported count.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import type { SeatSync } from '../../src/domain/seats/seat-sync.ts';
import { bearer } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import {
  buildAppWithFaultyProvider,
  type AppWithFaultyProvider,
} from '../helpers/faulty-provider.ts';
import { orgBilling, orgPost, orgSubscriptionId, seatEngine } from '../helpers/organizations.ts';
import { deliver, type FixtureEvent } from '../helpers/stripe-fixtures.ts';

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe(`the seat engine and a provider read dated after its data (${databaseLabel})`, () => {
  let setup: AppWithFaultyProvider;
  let sync: SeatSync;
  before(async () => {
    setup = await buildAppWithFaultyProvider({
      BILLING_SEATS: 'reported',
      BILLING_SEAT_MINIMUM: '2',
    });
    const t = setup.t;
    sync = seatEngine(t, 'late-read-test');
  });
  after(() => setup.close());

  const t = () => setup.t;
  const billing = () => orgBilling(t(), 'late-owner', { org: 'late', role: 'owner' });
  const report = async (count: number) => {
    const token = await t().token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:seats' },
    });
    const response = await t().app.inject({
      method: 'PUT',
      url: '/api/v1/orgs/late/seats',
      headers: bearer(token),
      payload: { count, as_of: new Date().toISOString() },
    });
    assert.equal(response.statusCode, 200, response.body);
  };
  /** The provider's event of `type` about subscription `id`, newest first. */
  const eventAbout = async (type: string, id: string): Promise<FixtureEvent> =>
    (await setup.undelivered()).find(
      (e) => e.type === type && JSON.stringify(e.data.object).includes(id),
    )!;
  /** Once the front has passed a new request for subscription `id` on to the provider. */
  const reached = async (method: string, id: string) => {
    const { requests } = setup.provider.front;
    const from = requests.length;
    const seen = await until(
      async () =>
        requests
          .slice(from)
          .some(
            (r) =>
              r.method === method && r.path === `/v1/subscriptions/${id}` && r.objectId !== null,
          ),
      Boolean,
      10_000,
    );
    assert.ok(seen, `no ${method} of ${id} reached the provider`);
  };

  /** Two members, paid at the checkout's 2 seats, stored from the subscription's first event. */
  async function paid(): Promise<string> {
    await billing();
    await orgBilling(t(), 'late-member', { org: 'late', role: 'member' });
    const { url } = (
      await orgPost(t(), 'late-owner', { org: 'late', role: 'owner' }, 'checkout')
    ).json();
    assert.equal((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status, 303);
    const created = await eventAbout('customer.subscription.created', 'sub_');
    // Its first snapshot is read; dated behind the invoice (a provider's clock apart from ours), so
    // the invoice's delivery reads the subscription again.
    setup.provider.front.clockOffsetSeconds = -2;
    assert.equal((await deliver(t().app, created)).statusCode, 200);
    setup.provider.front.clockOffsetSeconds = 0;
    assert.equal((await billing()).seats.billed, 2);
    return orgSubscriptionId(t(), 'late');
  }

  test('reported 12 then 5; a late-dated read of 2 lands during the push: it ends at 5', async () => {
    const id = await paid();
    await report(12);
    await report(5);
    const invoicePaid = await eventAbout('invoice.paid', id);
    const route = new RegExp(`^/v1/subscriptions/${id}$`);
    // The invoice's delivery reads the subscription (2 seats); its answer is held back...
    const read = gate();
    setup.provider.front.inject('GET', route, { kind: 'answer-after', gate: read.promise }, 1);
    const readSent = reached('GET', id);
    const delivery = deliver(t().app, invoicePaid);
    await readSent;
    // ...while the engine pushes 5, and the provider emits the push's event.
    const answer = gate();
    setup.provider.front.inject('POST', route, { kind: 'answer-after', gate: answer.promise }, 1);
    const pushSent = reached('POST', id);
    const look = sync.look();
    await pushSent;
    const pushedIn = Math.floor(Date.now() / 1000);
    await until(
      async () => Math.floor(Date.now() / 1000),
      (second) => second > pushedIn,
    );
    read.open(); // dated a second after the push: stored as the newer state
    assert.equal((await delivery).statusCode, 200);
    answer.open();
    assert.equal(await look, 1);
    const updated = await eventAbout('customer.subscription.updated', id);
    assert.equal((await deliver(t().app, updated)).statusCode, 200);
    const { seats } = await billing();
    assert.equal(seats.billed, 2, "the late read stands; the push's event was older than it");
    const outOfSync = () => t().composition.store.seats.outOfSync();
    for (let i = 0; i < 4 && (await outOfSync()) > 0; i++) await sync.look();
    const quantity = (await setup.direct.subscriptions.retrieve(id)).items.data[0]!.quantity;
    assert.equal(quantity, 5, 'the provider bills the last report');
    assert.equal((await billing()).seats.billed, 5, 'the stored quantity follows');
    assert.equal(await outOfSync(), 0);
  });
});
