// Subscription reads shared in a process (withSharedReads), on the real stripe SDK against the
// payment simulator, counting the requests that reach it: callers that can use one read share it
// (in flight, or finished a moment ago and stamped late enough), one that cannot waits and sends
// its own, never two of one subscription at a time, and at most 8 reads are in flight at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { withSharedReads } from '../../src/adapters/payments/shared-reads.ts';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { createStripePayments } from '../../src/adapters/payments/stripe-payments.ts';
import { readClock, type PaymentsProvider } from '../../src/domain/ports/payments-provider.ts';
import { mostInFlight } from '../helpers/faulty-front.ts';
import {
  PROVIDER_API_KEY,
  startFaultyProvider,
  type FaultyProvider,
} from '../helpers/faulty-provider.ts';

const SLOW_MS = 200;

describe('subscription reads shared in a process', () => {
  let provider: FaultyProvider;
  let payments: PaymentsProvider;
  before(async () => {
    provider = await startFaultyProvider();
    const stripe = createStripeClient(PROVIDER_API_KEY, provider.front.url);
    payments = withSharedReads(createStripePayments(stripe, { error() {} }));
    provider.front.inject('GET', /^\/v1\/subscriptions\//, { kind: 'delay', ms: SLOW_MS });
  });
  after(() => provider.close());

  const readsOf = (prefix: string) =>
    provider.front.requests.filter((r) => r.path.startsWith(`/v1/subscriptions/${prefix}`));

  test('callers that ask at once share one read', async () => {
    const asked = readClock();
    const reads = await Promise.all(
      Array.from({ length: 5 }, () =>
        payments.retrieveSubscription('sub_together', { sentFrom: asked, stampedAfter: 0 }),
      ),
    );
    assert.equal(readsOf('sub_together').length, 1);
    assert.ok(reads.every((read) => read === reads[0] && read.sentAt >= asked));
  });

  test('a caller the read in flight is too early for waits for it, then sends its own', async () => {
    const first = payments.retrieveSubscription('sub_later', { sentFrom: 0, stampedAfter: 0 });
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS / 2));
    const askedLater = readClock();
    const second = await payments.retrieveSubscription('sub_later', {
      sentFrom: askedLater,
      stampedAfter: Infinity,
    });
    assert.ok((await first).sentAt < askedLater && second.sentAt >= askedLater);
    assert.equal(readsOf('sub_later').length, 2);
    assert.equal(mostInFlight(readsOf('sub_later')), 1, 'never two reads of it at a time');
  });

  test('a finished read stamped later than the caller needs is reused; one that is not, is not', async () => {
    const done = await payments.retrieveSubscription('sub_reused', {
      sentFrom: 0,
      stampedAfter: 0,
    });
    const now = { sentFrom: readClock(), stampedAfter: done.readAt - 1 };
    assert.equal(await payments.retrieveSubscription('sub_reused', now), done);
    assert.equal(readsOf('sub_reused').length, 1);
    const tooOld = { sentFrom: readClock(), stampedAfter: done.readAt };
    assert.notEqual(await payments.retrieveSubscription('sub_reused', tooOld), done);
    assert.equal(readsOf('sub_reused').length, 2);
  });

  test('at most 8 reads are in flight at once; the others queue', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `sub_burst_${i}`);
    await Promise.all(ids.map((id) => payments.retrieveSubscription(id)));
    assert.equal(readsOf('sub_burst_').length, ids.length);
    assert.equal(mostInFlight(readsOf('sub_burst_')), 8);
  });
});
