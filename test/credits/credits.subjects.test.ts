// Whose credits (contract section 14, The subject): the organisation a token names, else the user.
// Members of an organisation share its balance; a member's own balance, read with a token naming no
// organisation, is separate. The backend spends an organisation's by its idp_id, which its members
// then see; a pack bought in an organisation's checkout, and its team subscription's paid period,
// add to the organisation's balance, not to the buyer's own.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { memberToken } from '../helpers/organizations.ts';
import {
  checkoutSessionObject,
  deliver,
  eventOf,
  invoiceObject,
  subscriptionObject,
  type FixtureEvent,
} from '../helpers/stripe-fixtures.ts';

interface Credits {
  subject: { type: string; id: string };
  balance: number;
  grant: { amount: number; remaining: number } | null;
  purchased: number;
}

const hex = () => randomBytes(6).toString('hex');
const unixNow = () => Math.floor(Date.now() / 1000);

describe(`whose credits (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const accepted = async (event: FixtureEvent) => {
    const response = await deliver(t.app, event);
    assert.equal(response.statusCode, 200, response.body);
  };

  const read = async (token: string): Promise<Credits> => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(token),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  const spend = async (type: 'user' | 'organization', idpId: string, amount: number) => {
    const token = await t.token('backend', undefined, {
      email: undefined,
      extra: { client_id: DEV_SERVICE_CLIENT, scope: 'billing:credits', gty: 'client-credentials' },
    });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/spend',
      headers: bearer(token),
      payload: { subject: { type, idp_id: idpId }, amount, idempotency_key: hex() },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().balance as number;
  };

  test("members share their organisation's balance; a member's own is separate", async () => {
    const ann = await memberToken(t, 'subj-ann', 'subjco', 'owner');
    const bob = await memberToken(t, 'subj-bob', 'subjco', 'member');
    const annAlone = await t.token('subj-ann');
    const org = await read(ann);
    assert.equal(org.subject.type, 'organization');
    assert.deepEqual((await read(bob)).subject, org.subject);
    const own = await read(annAlone);
    assert.equal(own.subject.type, 'user');
    assert.notEqual(own.subject.id, org.subject.id);
    assert.equal(await spend('organization', 'subjco', 10), org.balance - 10);
    assert.equal((await read(ann)).balance, org.balance - 10);
    assert.equal((await read(bob)).balance, org.balance - 10);
    assert.equal((await read(annAlone)).balance, own.balance, "the member's own is untouched");
    assert.equal(await spend('user', 'subj-ann', 1), own.balance - 1);
    assert.equal((await read(ann)).balance, org.balance - 10, "the organisation's is untouched");
  });

  test("a pack bought in an organisation's checkout adds to the organisation's balance", async () => {
    const owner = await memberToken(t, 'subj-cat', 'packco', 'owner');
    const alone = await t.token('subj-cat');
    const org = await read(owner);
    const own = await read(alone);
    await accepted(
      eventOf(
        'checkout.session.completed',
        checkoutSessionObject({
          mode: 'payment',
          subscription: null,
          customer: `cus_${hex()}`,
          client_reference_id: org.subject.id,
          metadata: { org_id: org.subject.id, credit_pack: 'large' },
          payment_intent: `pi_${hex()}`,
        }),
      ),
    );
    const after = await read(owner);
    assert.equal(after.purchased, org.purchased + 2500);
    assert.equal(after.balance, org.balance + 2500);
    assert.deepEqual(await read(alone), own);
  });

  test("an organisation's team subscription: its paid period grants the organisation team's 5000", async () => {
    const owner = await memberToken(t, 'subj-dan', 'teamco', 'owner');
    const org = await read(owner);
    const customer = `cus_${hex()}`;
    const periodEnd = unixNow() + 30 * 86_400;
    const subscription = subscriptionObject({
      customer,
      priceId: 'price_sim_team',
      periodEnd,
      metadata: { org_id: org.subject.id },
    });
    await accepted(eventOf('customer.subscription.created', subscription));
    await accepted(
      eventOf(
        'invoice.paid',
        invoiceObject(subscription.id, customer, {
          billing_reason: 'subscription_create',
          lines: {
            object: 'list',
            has_more: false,
            data: [
              {
                id: `il_${hex()}`,
                object: 'line_item',
                period: { start: periodEnd - 30 * 86_400, end: periodEnd },
                pricing: {
                  type: 'price_details',
                  price_details: { price: 'price_sim_team', product: 'prod_sim' },
                },
              },
            ],
          },
        } as never),
        { created: unixNow() - 60 },
      ),
    );
    const after = await read(owner);
    assert.equal(after.grant?.amount, 5000);
    assert.equal(after.balance, 5000 + after.purchased);
    assert.equal((await read(await t.token('subj-dan'))).grant?.amount ?? 0, 100, 'not the user');
  });
});
