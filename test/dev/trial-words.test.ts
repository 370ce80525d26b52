// A trial's pages say what a trial is: the success page says the trial started, until when and what
// happens then ("Payment received" would be false for a $0 trial), and /billing says the same from
// what the service knows (this checkout asked for no card, so it cannot know whether one was added:
// it says what happens either way). Paid tiers in green, free in grey.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { landing, postForm } from '../helpers/billing-forms.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';

describe(`a trial's words on the service's pages (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_TRIAL_DAYS: '14', BILLING_TRIAL_REQUIRES_CARD: 'false' });
    await deliverWebhooks(t);
  });
  after(() => t.close());

  test('a $0 trial: "Your trial has started", when it ends and what then; never "Payment received"', async () => {
    const token = await t.token('trial-words');
    const checkout = await postForm(t, '/billing/checkout', { token });
    assert.equal(checkout.statusCode, 303, checkout.body);
    const sessionUrl = String(checkout.headers.location);
    const sessionId = sessionUrl.split('/').pop()!;
    const waiting = await t.app.inject({
      method: 'GET',
      url: `/billing/success?session_id=${sessionId}`,
    });
    assert.match(waiting.body, /<title>Checkout complete<\/title>/);
    assert.doesNotMatch(waiting.body, /Payment received/);

    assert.equal(
      (await fetch(`${sessionUrl}/pay`, { method: 'POST', redirect: 'manual' })).status,
      303,
    );
    const success = await until(
      async () =>
        (await t.app.inject({ method: 'GET', url: `/billing/success?session_id=${sessionId}` }))
          .body,
      (body) => !body.includes('Waiting for the payment provider'),
    );
    assert.match(success, /<h1>Your trial has started<\/h1>/);
    assert.doesNotMatch(success, /Payment received/);
    assert.match(success, /Your plan is now <span class="tier" id="tier">pro<\/span>/);
    assert.match(success, /Your pro trial runs until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
    assert.match(success, /The checkout asked for no card\. If one is on file by then/);
    assert.match(success, /Nothing was charged today\./);

    const account = await landing(t, await postForm(t, '/billing/sign-in', { token }));
    assert.match(account.body, /<span class="tier" id="tier">pro<\/span>/);
    assert.match(
      account.body,
      /Your pro trial runs until [^<]+<\/p><p>The checkout asked for no card/,
    );
    assert.doesNotMatch(account.body, /if there is a way to pay for it/);
    assert.match(account.body, /Provider status: <span id="status">trialing<\/span>/);
  });
});
