// One open checkout session per subject: a checkout for another target (other return URLs)
// replaces the subject's open session, which is expired at the provider so it can no longer be
// paid; the database then holds one open session for the user.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { checkoutUrl, sessionId, TRIAL_WITHOUT_CARD } from '../helpers/checkout.ts';
import { databaseLabel } from '../helpers/database.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const APP = 'https://app.example.test';

describe(`one open checkout per subject (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ APP_URL: APP, ...TRIAL_WITHOUT_CARD });
  });
  after(() => t.close());

  const checkout = async (sub: string, payload: object = {}) =>
    sessionId(await checkoutUrl(t, sub, payload));
  const stored = async (sub: string) =>
    t.composition.db.query<{ id: string; status: string }>(
      'SELECT id, status FROM checkout_sessions WHERE user_id = $1 ORDER BY created_at',
      [await profileId(t, sub)],
    );

  test('a checkout for other return URLs replaces the open session, expired at the provider', async () => {
    const first = await checkout('two-tabs', { success_url: `${APP}/first` });
    const second = await checkout('two-tabs', { success_url: `${APP}/second` });
    assert.notEqual(first, second);
    const stripe = simulatorClient(t);
    assert.equal((await stripe.checkout.sessions.retrieve(first)).status, 'expired');
    assert.equal((await stripe.checkout.sessions.retrieve(second)).status, 'open');
    assert.deepEqual(await stored('two-tabs'), [
      { id: first, status: 'expired' },
      { id: second, status: 'open' },
    ]);
    assert.equal(await checkout('two-tabs', { success_url: `${APP}/second` }), second);
  });
});
