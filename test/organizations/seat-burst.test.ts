// A burst of seat reports that lasts several times the engine's longest wait (BILLING_SEATS=
// reported; the application's backend reporting every 100 ms for 4 s, the engine looking every
// 50 ms with a 1 s wait): two quantity updates at the provider, one when the first report has
// waited its longest and one once the burst goes quiet, and the provider ends at the last count.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import type { SeatSync } from '../../src/domain/seats/seat-sync.ts';
import { bearer, buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import { orgBilling, orgPost, orgSubscriptionId, seatEngine } from '../helpers/organizations.ts';
import { providerCalls, resetProviderCalls, simulatorClient } from '../helpers/simulator-client.ts';

const UPDATE = 'POST /v1/subscriptions/:id';
const BURST_MS = 4_000;

describe(`a long burst of seat reports (${databaseLabel})`, () => {
  let t: TestApp;
  let sync: SeatSync;
  before(async () => {
    t = await buildTestApp({ BILLING_SEATS: 'reported', BILLING_SEAT_MINIMUM: '1' });
    await deliverWebhooks(t);
    sync = seatEngine(t, 'seat-burst-test', { everyMs: 50, quietMs: 400, maxWaitMs: 1_000 });
  });
  after(async () => {
    await sync.stop();
    await t.close();
  });

  const report = async (count: number) => {
    const token = await t.token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:seats' },
    });
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/orgs/stream/seats',
      headers: bearer(token),
      payload: { count, as_of: new Date().toISOString() },
    });
    assert.equal(response.statusCode, 200, response.body);
  };
  const providerQuantity = async (id: string) =>
    (await simulatorClient(t).subscriptions.retrieve(id)).items.data[0]!.quantity;

  test(`reports every 100 ms for ${BURST_MS / 1000} s: two pushes, the last count billed`, async () => {
    await report(3);
    const { url } = (
      await orgPost(t, 'stream-owner', { org: 'stream', role: 'owner' }, 'checkout')
    ).json();
    assert.equal((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status, 303);
    await until(
      () => orgBilling(t, 'stream-owner', { org: 'stream', role: 'owner' }),
      (billing) => billing.seats.billed === 3,
    );
    const id = await orgSubscriptionId(t, 'stream');
    await resetProviderCalls(t);
    sync.start();
    let count = 3;
    for (const end = Date.now() + BURST_MS; Date.now() < end; await sleep(100))
      await report(++count);
    const quantity = await until(
      () => providerQuantity(id),
      (value) => value === count,
      20_000,
    );
    assert.equal(quantity, count);
    await sleep(1_000); // the engine's looks after the burst: nothing more to push
    assert.equal((await providerCalls(t))[UPDATE], 2);
  });
});
