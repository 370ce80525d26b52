// A redelivery of an event this process remembers recorded is answered from memory, before its
// body is parsed: the verifier reads the event's id from the first bytes, where Stripe writes it
// in both payload styles, and leaves any other body to the parser. The signature comes first all
// the same: a remembered id with a wrong signature is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createStripeWebhookVerifier } from '../../src/adapters/payments/stripe-events.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { eventOf, signedHeaders, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const SECRET = 'whsec_remembered_secret';

describe('the event id, read before the body is parsed', () => {
  const verifier = createStripeWebhookVerifier([SECRET]);
  const verified = (body: string, secret = SECRET) =>
    verifier.verify(Buffer.from(body), signedHeaders(body, secret)['stripe-signature']);
  const snapshot = eventOf('customer.subscription.updated', subscriptionObject());
  const thin = {
    id: 'evt_thin_0123456789',
    object: 'v2.core.event',
    type: 'v1.customer.subscription.updated',
    livemode: false,
    created: new Date().toISOString(),
    related_object: { id: 'sub_1', type: 'subscription', url: '/v1/subscriptions/sub_1' },
  };

  test('a snapshot event as Stripe sends it (pretty-printed, or not), and a thin one', () => {
    assert.equal(verified(JSON.stringify(snapshot, null, 2)).id, snapshot.id);
    assert.equal(verified(JSON.stringify(snapshot)).id, snapshot.id);
    assert.equal(verified(JSON.stringify(thin, null, 2)).id, thin.id);
  });

  test('a body that does not begin with its id gives none; its event is parsed all the same', () => {
    const { id, ...rest } = snapshot;
    const delivery = verified(JSON.stringify({ ...rest, id }));
    assert.equal(delivery.id, null);
    assert.equal(delivery.event().id, id);
  });

  test('a wrong signature is refused before anything is read', () => {
    assert.throws(() => verified(JSON.stringify(snapshot), 'whsec_someone_else'), {
      code: 'invalid_signature',
    });
  });
});

describe(`a remembered redelivery (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ PAYMENTS_WEBHOOK_SECRET: SECRET });
  });
  after(() => t.close());

  const post = (payload: string, secret = SECRET) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/payments',
      payload,
      headers: signedHeaders(payload, secret),
    });

  test('answered duplicate; with a wrong signature, refused', async () => {
    const body = JSON.stringify(eventOf('customer.created', { id: 'cus_1', object: 'customer' }));
    assert.deepEqual((await post(body)).json(), { status: 'ignored' });
    assert.deepEqual((await post(body)).json(), { status: 'duplicate' });
    assert.equal((await post(body, 'whsec_someone_else')).statusCode, 400);
  });
});
