// Checkouts as the API's client starts them, and the provider's sessions behind them.
import assert from 'node:assert/strict';
import type Stripe from 'stripe';
import { bearer, type TestApp } from './app.ts';
import { simulatorClient } from './simulator-client.ts';

/** A 14-day trial that asks for no card, for the tests of trial checkouts. */
export const TRIAL_WITHOUT_CARD = {
  BILLING_TRIAL_DAYS: '14',
  BILLING_TRIAL_REQUIRES_CARD: 'false',
};

/** POST /billing/checkout as `sub` with `payload`: asserts a 200 and returns the session's URL. */
export async function checkoutUrl(t: TestApp, sub: string, payload: object = {}): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/v1/billing/checkout',
    headers: bearer(await t.token(sub)),
    payload,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().url as string;
}

/** The id of the session a checkout URL pays. */
export const sessionId = (url: string) => url.split('/').pop()!;

/** The provider's sessions behind checkout responses, once each: asserts every one answered 200. */
export async function sessionsBehind(
  t: TestApp,
  responses: Response[],
): Promise<Stripe.Checkout.Session[]> {
  assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
  const urls = await Promise.all(
    responses.map(async (r) => ((await r.json()) as { url: string }).url),
  );
  return Promise.all(
    [...new Set(urls)].map((url) => simulatorClient(t).checkout.sessions.retrieve(sessionId(url))),
  );
}

/** A user who started a checkout, so is linked to a customer of our making: that customer's id. */
export async function customerOfCheckout(t: TestApp, sub: string): Promise<string> {
  await checkoutUrl(t, sub);
  return (await t.composition.store.users.findByIdpId(sub))!.paymentsCustomerId!;
}
