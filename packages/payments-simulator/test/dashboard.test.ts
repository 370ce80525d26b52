// The dashboard as a developer's local loop: each delivery shows what the endpoint answered (status
// and body) and can be sent again with the same event id; notices say what happened in words, not
// action names; a canceled subscription reads as canceled.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  control,
  databaseLabel,
  noticeAt,
  openCheckout,
  pay,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';

describe(`simulator dashboard (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  async function subscribed(userId: string): Promise<string> {
    const { session } = await openCheckout(stack.stripe, userId);
    await pay(stack.simulator, session.id);
    return (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
  }
  /** Posts a dashboard form as a browser does and returns the notice of the page it lands on. */
  async function click(path: string): Promise<string> {
    const response = await fetch(`${stack.simulator.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
    });
    assert.equal(response.status, 303);
    return noticeAt(response.headers.get('location')!, stack.simulator.url);
  }
  const dashboard = async () => (await fetch(`${stack.simulator.url}/`)).text();
  const rowOf = (page: string, marker: string) =>
    page.split('<tr').find((row) => row.includes(marker)) ?? '';

  test('each delivery shows the status and body the endpoint answered', async () => {
    await subscribed('dash-answers');
    const event = stack.receiver.events.at(-1)!;
    const row = rowOf(await dashboard(), `data-event="${event.id}"`);
    assert.match(row, /class="badge delivered status">200</);
    assert.match(row, /<code class="answer">\{&quot;status&quot;:&quot;processed&quot;\}<\/code>/);
    assert.match(row, /\/dashboard\/events\/evt_\w+\/resend/);
  });

  test('Resend sends a delivered event again with the same id and shows the answer', async () => {
    await subscribed('dash-resend');
    const event = stack.receiver.events.at(-1)!;
    const count = stack.receiver.events.length;
    const notice = await click(`/dashboard/events/${event.id}/resend`);
    assert.match(
      notice,
      new RegExp(
        `Sent ${event.id} again \\(same event id\\): the service answered 200 \\{"status":"processed"\\}`,
      ),
    );
    assert.equal(stack.receiver.events.length, count + 1);
    assert.equal(stack.receiver.events.at(-1)!.id, event.id);
  });

  test('notices in words: cancel at period end, keep it, cancel again, end the period', async () => {
    const subscription = await subscribed('dash-words');
    const notices = [];
    for (const action of [
      'cancel-at-period-end',
      'resume-at-period-end',
      'cancel-at-period-end',
      'renew',
    ]) {
      notices.push(await click(`/dashboard/subscriptions/${subscription}/${action}`));
    }
    assert.match(
      notices[0]!,
      /^The subscription will be canceled at the end of the period, on \d{4}-\d\d-\d\d \d\d:\d\d UTC\. Events sent: customer\.subscription\.updated \(delivered\)\.$/,
    );
    assert.match(
      notices[1]!,
      /^The cancellation was withdrawn: the subscription renews as usual on /,
    );
    assert.match(
      notices[3]!,
      /^The period ended and the subscription is now canceled\. Events sent: customer\.subscription\.deleted \(delivered\)\.$/,
    );
    for (const notice of notices)
      assert.doesNotMatch(
        notice,
        /resume-at-period-end|cancel-at-period-end|renew sub_|now canceled\b.*sub_/,
      );
  });

  test('a subscription that ended at period end reads as canceled, not "cancels at period end", ended when it did', async () => {
    const subscription = await subscribed('dash-ended');
    const set = await control(stack.simulator, subscription, 'cancel-at-period-end');
    await control(stack.simulator, subscription, 'renew');
    const ended = (await stack.stripe.subscriptions.retrieve(subscription)) as Stripe.Subscription;
    assert.equal(ended.status, 'canceled');
    assert.equal(ended.ended_at, set.body.subscription.cancel_at, 'the clock moved to its end');
    const row = rowOf(await dashboard(), `<code>${subscription}</code>`);
    assert.match(row, /class="badge canceled">canceled</);
    const day = new Date(ended.ended_at! * 1000).toISOString().slice(0, 10);
    assert.match(row, new RegExp(`ended ${day} `), 'the day it ended');
    assert.doesNotMatch(row, /cancels at period end/);
  });

  test('notices come from the server: a crafted ?notice= shows nothing, only the id a click got shows its words', async () => {
    const crafted = await fetch(
      `${stack.simulator.url}/?notice=${encodeURIComponent('Your card expired: re-enter it at https://attacker.example')}`,
    );
    assert.doesNotMatch(await crafted.text(), /attacker\.example|class="notice"/);
    const subscription = await subscribed('dash-notice-id');
    const response = await fetch(
      `${stack.simulator.url}/dashboard/subscriptions/${subscription}/cancel-at-period-end`,
      { method: 'POST', redirect: 'manual' },
    );
    const location = response.headers.get('location')!;
    assert.match(location, /^\/\?notice=[\w-]{12}$/, 'the URL carries an id, not words');
    assert.match(
      await noticeAt(location, stack.simulator.url),
      /will be canceled at the end of the period/,
    );
  });

  test('a Host that is not a name of this machine (DNS rebinding) gets 421, pages and API alike', async () => {
    const { request } = await import('node:http');
    const status = (path: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(stack.simulator.url);
        request(
          {
            host: url.hostname,
            port: url.port,
            path,
            headers: { host, authorization: 'Bearer sk_test_simulator' },
          },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode ?? 0);
          },
        )
          .on('error', reject)
          .end();
      });
    for (const path of ['/', '/v1/customers']) {
      assert.equal(await status(path, 'attacker.example:12111'), 421, path);
      assert.equal(await status(path, 'localhost:12111'), 200, path);
      assert.equal(await status(path, '127.0.0.1:12111'), 200, path);
    }
  });

  test('a form post with Origin: null and no Sec-Fetch-Site is refused', async () => {
    const subscription = await subscribed('dash-null-origin');
    const response = await fetch(
      `${stack.simulator.url}/dashboard/subscriptions/${subscription}/cancel-now`,
      { method: 'POST', redirect: 'manual', headers: { origin: 'null' } },
    );
    assert.equal(response.status, 403);
    assert.equal(
      ((await stack.stripe.subscriptions.retrieve(subscription)) as Stripe.Subscription).status,
      'active',
    );
  });
});
