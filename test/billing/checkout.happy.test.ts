// POST /api/v1/billing/checkout through the real stripe SDK against the embedded simulator: the
// session is a subscription checkout for the server-chosen price, carries the user id, reuses
// one customer per user and returns the still-open session on a second click.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`checkout (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ APP_URL: 'https://app.example.test' });
  });
  after(() => t.close());

  const checkout = async (sub: string, payload: object = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(await t.token(sub)),
      payload,
    });
  const sessionIdOf = (url: string) => url.split('/').pop()!;
  const storedPrice = async (sessionId: string) =>
    (
      await t.composition.db.query<{ price_id: string }>(
        'SELECT price_id FROM checkout_sessions WHERE id = $1',
        [sessionId],
      )
    )[0]?.price_id;

  test('creates a subscription session for the default plan with the user id and default URLs', async () => {
    const response = await checkout('uma');
    assert.equal(response.statusCode, 200);
    const { url } = response.json();
    assert.ok(url.startsWith(`${t.composition.simulatorUrl}/checkout/`));
    const session = await simulatorClient(t).checkout.sessions.retrieve(sessionIdOf(url));
    const me = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('uma')),
      })
    ).json();
    assert.equal(session.mode, 'subscription');
    assert.equal(session.client_reference_id, me.id);
    assert.equal(
      session.success_url,
      'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
    );
    assert.equal(session.cancel_url, 'https://app.example.test/billing/cancel');
    assert.equal(session.metadata?.user_id, me.id);
    assert.equal(await storedPrice(session.id), 'price_sim_pro');
  });

  test('price, tier and plan fields in the body change nothing', async () => {
    const response = await checkout('victor', {
      price: 'price_sim_team',
      price_id: 'price_sim_team',
      tier: 'team',
      plan: 'team',
      line_items: [{ price: 'price_sim_team' }],
    });
    assert.equal(response.statusCode, 200);
    assert.equal(await storedPrice(sessionIdOf(response.json().url)), 'price_sim_pro');
  });

  test('the user plan held on the server picks the price', async () => {
    await checkout('wendy');
    await t.composition.db.query("UPDATE users SET plan = 'team' WHERE idp_id = 'wendy'");
    const response = await checkout('wendy', { success_url: 'https://app.example.test/done' });
    assert.equal(await storedPrice(sessionIdOf(response.json().url)), 'price_sim_team');
  });

  test('a second checkout while the first is open returns the same session', async () => {
    const first = (await checkout('xena')).json().url;
    const second = (await checkout('xena')).json().url;
    assert.equal(second, first);
  });

  test('different return URLs open a new session for the same customer', async () => {
    const stripe = simulatorClient(t);
    const first = await stripe.checkout.sessions.retrieve(
      sessionIdOf((await checkout('yuri')).json().url),
    );
    const other = await stripe.checkout.sessions.retrieve(
      sessionIdOf(
        (await checkout('yuri', { cancel_url: 'https://app.example.test/back' })).json().url,
      ),
    );
    assert.notEqual(other.id, first.id);
    assert.equal(other.customer, first.customer);
  });

  test('an expired session is not reused; the customer is', async () => {
    const stripe = simulatorClient(t);
    const first = await stripe.checkout.sessions.retrieve(
      sessionIdOf((await checkout('zack')).json().url),
    );
    await stripe.checkout.sessions.expire(first.id);
    const second = await stripe.checkout.sessions.retrieve(
      sessionIdOf((await checkout('zack')).json().url),
    );
    assert.notEqual(second.id, first.id);
    assert.equal(second.customer, first.customer);
  });

  test('10 concurrent first checkouts make one customer and one session', async () => {
    const token = await t.token('amy');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/billing/checkout',
          headers: bearer(token),
          payload: {},
        }),
      ),
    );
    assert.deepEqual([...new Set(responses.map((r) => r.statusCode))], [200]);
    const stripe = simulatorClient(t);
    const sessions = await Promise.all(
      [...new Set(responses.map((r) => sessionIdOf(r.json().url)))].map((id) =>
        stripe.checkout.sessions.retrieve(id),
      ),
    );
    assert.equal(new Set(sessions.map((s) => s.customer)).size, 1);
    const [user] = await t.composition.db.query<{ payments_customer_id: string }>(
      "SELECT payments_customer_id FROM users WHERE idp_id = 'amy'",
    );
    assert.equal(user!.payments_customer_id, sessions[0]!.customer);
  });

  test('a user with an active subscription gets 409', async () => {
    const me = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/users/me',
        headers: bearer(await t.token('ben')),
      })
    ).json();
    await deliver(
      t.app,
      eventOf(
        'customer.subscription.created',
        subscriptionObject({ metadata: { user_id: me.id } }),
      ),
    );
    const response = await checkout('ben');
    assert.equal(response.statusCode, 409);
    assert.equal(typeof response.json().detail, 'string');
  });
});
