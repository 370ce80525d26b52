// A team checkout that carries a trial says so before (on /billing, for a manager) and after (the
// page it comes back to): nothing is charged today, when the trial ends and what happens then,
// never "Payment received".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { postForm } from '../helpers/billing-forms.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import { memberToken } from '../helpers/organizations.ts';

describe(`a team trial in words (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ BILLING_TRIAL_DAYS: '14' });
    await deliverWebhooks(t);
  });
  after(() => t.close());

  const get = async (url: string, token: string) =>
    (await t.app.inject({ method: 'GET', url, headers: { cookie: `billing_dev_token=${token}` } }))
      .body;

  test('the team checkout says it carries a trial, and its success page says the trial began', async () => {
    const admin = await memberToken(t, 'trial-ann', 'trialco', 'admin');
    assert.match(
      await get('/billing', admin),
      /A team checkout sells team for its members, with a free trial first: nothing is charged today\./,
    );
    const posted = await postForm(t, '/billing/org/checkout', { token: admin });
    const url = String(posted.headers.location);
    assert.equal((await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status, 303);
    const done = await until(
      () => get('/billing/org/success', admin),
      (body) => !body.includes('Waiting for the payment provider'),
    );
    assert.doesNotMatch(done, /Payment received/);
    assert.match(done, /<title>Your team&#39;s trial has started|Your team's trial has started/);
    assert.match(
      done,
      /Your organisation&#39;s team trial runs until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./,
    );
    assert.match(done, /Nothing was charged today\./);
  });
});
