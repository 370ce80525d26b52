// Never crossed: the organisation is the token's, nothing else's. A manager of one organisation
// whose body, query or path names another only ever touches their own; an event whose metadata
// names another organisation (or a user) than its customer's stays with the customer's; a user's
// customer never becomes an organisation's, nor the other way round.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { asMember, memberTier, orgBilling, orgPost } from '../helpers/organizations.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

describe(`never crossed (${databaseLabel})`, () => {
  let t: TestApp;
  let alpha: { id: string };
  let beta: { id: string; customer: string };
  before(async () => {
    t = await buildTestApp();
    alpha = (await orgBilling(t, 'alpha-admin', { org: 'alpha', role: 'admin' })).org;
    const { url } = (
      await orgPost(t, 'beta-admin', { org: 'beta', role: 'admin' }, 'checkout')
    ).json();
    const session = await simulatorClient(t).checkout.sessions.retrieve(url.split('/').pop()!);
    beta = {
      ...(await orgBilling(t, 'beta-admin', { org: 'beta' })).org,
      customer: String(session.customer),
    };
  });
  after(() => t.close());

  const alphaAdmin = { org: 'alpha', role: 'admin' };
  const naming = () => ({
    org: 'beta',
    org_id: beta.id,
    idp_org_id: 'beta',
    organization: 'beta',
    organization_id: beta.id,
    customer: beta.customer,
    price: 'price_sim_pro',
    quantity: 500,
  });
  const sessionsOf = async (organizationId: string) =>
    t.composition.db.query<{ id: string; quantity: number }>(
      'SELECT id, quantity FROM checkout_sessions WHERE organization_id = $1',
      [organizationId],
    );

  test("a manager's checkout naming another organisation in its body and query is their own", async () => {
    const before = await sessionsOf(beta.id);
    const query = new URLSearchParams({ org: 'beta', org_id: beta.id }).toString();
    const response = await asMember(t, 'alpha-admin', alphaAdmin, {
      method: 'POST',
      url: `/api/v1/orgs/current/billing/checkout?${query}`,
      payload: naming(),
    });
    assert.equal(response.statusCode, 200, response.body);
    const session = await simulatorClient(t).checkout.sessions.retrieve(
      response.json().url.split('/').pop()!,
    );
    assert.equal(session.client_reference_id, alpha.id);
    assert.notEqual(session.customer, beta.customer);
    const items = await simulatorClient(t).checkout.sessions.listLineItems(session.id);
    assert.deepEqual([items.data[0]!.price?.id, items.data[0]!.quantity], ['price_sim_team', 1]);
    assert.deepEqual(await sessionsOf(beta.id), before, "the other organisation's untouched");
  });

  test('the billing, the portal and the summary read the token, not the query or body', async () => {
    const billing = await asMember(
      t,
      'alpha-member',
      { org: 'alpha' },
      {
        method: 'GET',
        url: `/api/v1/orgs/current/billing?org=beta&org_id=${beta.id}`,
      },
    );
    assert.equal(billing.json().org.id, alpha.id);
    const portal = await orgPost(t, 'alpha-admin', alphaAdmin, 'portal', naming());
    assert.equal(portal.statusCode, 200);
    const opened = await fetch(portal.json().url);
    assert.ok(
      !(await opened.text()).includes(beta.customer),
      "not the other organisation's portal",
    );
  });

  test('a path naming an organisation: no such operation for a member, and seat reports refuse their token', async () => {
    const path = await asMember(t, 'alpha-admin', alphaAdmin, {
      method: 'GET',
      url: '/api/v1/orgs/beta/billing',
    });
    assert.equal(path.statusCode, 404);
    const seats = await asMember(t, 'alpha-admin', alphaAdmin, {
      method: 'PUT',
      url: '/api/v1/orgs/beta/seats',
      payload: { count: 1, as_of: '2026-01-01T00:00:00Z' },
    });
    assert.equal(seats.statusCode, 403);
  });

  test("an event naming another organisation, or a user, than its customer's stays with the customer's", async () => {
    const subscription = subscriptionObject({
      customer: beta.customer,
      metadata: { org_id: alpha.id, user_id: await profileId(t, 'alpha-admin') },
      priceId: 'price_sim_team',
    });
    assert.deepEqual(
      (await deliver(t.app, eventOf('customer.subscription.created', subscription))).json(),
      {
        status: 'processed',
      },
    );
    assert.equal((await orgBilling(t, 'beta-admin', { org: 'beta' })).tier, 'team');
    assert.equal((await orgBilling(t, 'alpha-admin', { org: 'alpha' })).tier, 'free');
    assert.equal(await memberTier(t, 'alpha-admin'), 'free');
  });

  test("a user's customer is never an organisation's: an event naming an organisation stays with the user", async () => {
    const userId = await profileId(t, 'solo-payer');
    await t.composition.store.users.linkCustomer(userId, 'cus_solo_payer');
    const subscription = subscriptionObject({
      customer: 'cus_solo_payer',
      metadata: { org_id: alpha.id },
      priceId: 'price_sim_pro',
    });
    await deliver(t.app, eventOf('customer.subscription.created', subscription));
    assert.equal(await memberTier(t, 'solo-payer'), 'pro');
    assert.equal((await orgBilling(t, 'alpha-admin', { org: 'alpha' })).tier, 'free');
    const gamma = (await orgBilling(t, 'gamma-admin', { org: 'gamma' })).org;
    assert.equal(
      await t.composition.store.organizations.linkCustomer(gamma.id, 'cus_solo_payer'),
      null,
      'the link statement refuses it',
    );
    assert.equal(
      await t.composition.store.users.linkCustomer(await profileId(t, 'thief'), beta.customer),
      null,
    );
  });
});
