// Development without APP_WEBHOOK_URL: the service sends its events to its own receiver at
// /dev/app-events, signed with a secret it generated under DATA_DIR, and lists what arrived.
import assert from 'node:assert/strict';
import { stat, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { buildTestApp, profileOf, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`the development receiver of outbound events (${databaseLabel})`, () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await buildTestApp({ NODE_ENV: 'development' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.composition.setServiceUrl(base);
  });
  after(() => t.close());

  test('its secret is generated once under DATA_DIR, readable by its owner only', async () => {
    const file = join(t.env.DATA_DIR!, 'app-events-secret');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.match(await readFile(file, 'utf8'), /^whsec_[A-Za-z0-9+/]{43}=\n$/);
  });

  test('a checkout is delivered to it, verified, and listed on its page', async () => {
    const user = await profileOf(t, 'dev-zoe');
    const subscription = subscriptionObject({ metadata: { user_id: user.id } });
    await deliver(t.app, eventOf('customer.subscription.created', subscription));
    assert.equal(await t.composition.jobs.deliveries!.deliverDue(), 1);
    const [row] = await t.composition.db.query<{ state: string }>(
      'SELECT state FROM outbound_events',
    );
    assert.equal(row!.state, 'delivered');
    const listed = await (await fetch(`${base}/dev/app-events`)).text();
    assert.match(listed, /tier\.changed/);
    assert.match(listed, /verified/);
    assert.match(listed, /&quot;reason&quot;:&quot;checkout&quot;/);
  });

  test('a delivery signed with another secret is refused, and shown as refused', async () => {
    const stranger = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
    const body = JSON.stringify({
      type: 'tier.changed',
      timestamp: new Date().toISOString(),
      data: {},
    });
    const answer = await fetch(`${base}/dev/app-events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_stranger',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': stranger.sign('msg_stranger', new Date(), body),
      },
      body,
    });
    assert.equal(answer.status, 400);
    assert.match(
      await (await fetch(`${base}/dev/app-events`)).text(),
      /refused: no signature matches/,
    );
  });

  test('the start page links to it', async () => {
    assert.match(await (await fetch(`${base}/`)).text(), /href="\/dev\/app-events"/);
  });
});
