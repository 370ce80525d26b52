// An organisation's billing through the whole loop on the embedded defaults (the development
// identity provider's org_id and org_role claims, the simulator delivering signed webhooks): any
// member sees it, a manager buys it for as many seats as it has members, the checkout names the
// organisation (never a user), the members get its tier, and the portal opens on its customer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, deliverWebhooks, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { databaseLabel } from '../helpers/database.ts';
import { memberTier, orgBilling, orgPost } from '../helpers/organizations.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TEAM = {
  features: ['core', 'export', 'api', 'sso', 'audit_log'],
  limits: { projects: null, seats: null },
};

describe(`an organisation's billing (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await deliverWebhooks(t);
  });
  after(() => t.close());

  const admin = { org: 'acme', role: 'admin' };
  const member = { org: 'acme', role: 'member' };
  const sessionOf = (url: string) =>
    simulatorClient(t).checkout.sessions.retrieve(url.split('/').pop()!);

  test("a member's first look: the organisation made, free, its plan, the member counted, nothing to manage", async () => {
    const body = await orgBilling(t, 'acme-ann', member);
    assert.match(body.org.id, UUID);
    assert.equal(body.org.idp_org_id, 'acme');
    assert.match(body.org.created_at, /\+00:00$/);
    assert.deepEqual(
      { ...body, org: undefined },
      {
        org: undefined,
        role: 'member',
        can_manage: false,
        tier: 'free',
        plan: 'team',
        trial_eligible: false,
        features: ['core'],
        limits: { projects: 3, seats: 1 },
        seats: { active: 1, reported: null, billed: null },
        subscription: null,
      },
    );
    const again = await orgBilling(t, 'acme-bob', { org: 'acme', role: ['viewer', 'Org:Admin'] });
    assert.equal(again.org.id, body.org.id);
    assert.equal(
      again.can_manage,
      true,
      'a list of roles, compared case-insensitively, org: ignored',
    );
    assert.deepEqual(again.role, ['viewer', 'Org:Admin']);
    assert.equal(again.seats.active, 2);
  });

  test('the portal before any checkout: 409, nothing to manage yet', async () => {
    const response = await orgPost(t, 'acme-bob', admin, 'portal');
    assert.equal(response.statusCode, 409);
    assert.match(response.json().detail, /nothing to manage yet/);
  });

  test("a manager's checkout sells the organisation's plan for its members, in the organisation's name", async () => {
    await orgBilling(t, 'acme-cat', member);
    const response = await orgPost(t, 'acme-bob', admin, 'checkout');
    assert.equal(response.statusCode, 200, response.body);
    const session = await sessionOf(response.json().url);
    const org = (await orgBilling(t, 'acme-bob', admin)).org;
    assert.equal(session.client_reference_id, org.id);
    assert.deepEqual(session.metadata, { org_id: org.id });
    const items = await simulatorClient(t).checkout.sessions.listLineItems(session.id);
    assert.deepEqual(
      items.data.map((item) => [item.price?.id, item.quantity]),
      [['price_sim_team', 3]],
    );
    const customer = await simulatorClient(t).customers.retrieve(String(session.customer));
    assert.deepEqual(('metadata' in customer && customer.metadata) || null, { org_id: org.id });
    const stored = await t.composition.db.query<Record<string, unknown>>(
      `SELECT o.payments_customer_id, s.user_id, s.organization_id, s.quantity
       FROM organizations o JOIN checkout_sessions s ON s.organization_id = o.id WHERE o.id = $1`,
      [org.id],
    );
    assert.deepEqual(stored, [
      {
        payments_customer_id: session.customer,
        user_id: null,
        organization_id: org.id,
        quantity: 3,
      },
    ]);
    const users = await t.composition.db.query(
      "SELECT 1 FROM users WHERE payments_customer_id IS NOT NULL AND idp_id LIKE 'acme-%'",
    );
    assert.deepEqual(users, [], 'no user got the customer');
    const twice = await orgPost(t, 'acme-bob', admin, 'checkout');
    assert.equal(twice.json().url, response.json().url, 'the still-open session again');
  });

  test('paid: every member gets the tier, the organisation shows it and its seats; a second checkout is refused', async () => {
    assert.equal(await memberTier(t, 'acme-ann', 'acme'), 'free');
    const { url } = (await orgPost(t, 'acme-bob', admin, 'checkout')).json();
    const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(paid.status, 303);
    const body = await until(
      () => orgBilling(t, 'acme-ann', member),
      (b) => b.tier === 'team',
    );
    assert.deepEqual([body.features, body.limits], [TEAM.features, TEAM.limits]);
    assert.equal(body.subscription.status, 'active');
    assert.equal(body.subscription.plan, 'team');
    assert.deepEqual(body.seats, { active: 3, reported: null, billed: 3 });
    for (const sub of ['acme-ann', 'acme-bob', 'acme-cat'])
      assert.equal(await memberTier(t, sub, 'acme'), 'team', sub);
    assert.equal(
      await memberTier(t, 'acme-ann'),
      'free',
      'a token naming no organisation: own tier',
    );
    assert.equal(
      await memberTier(t, 'acme-ann', 'globex'),
      'free',
      'another organisation: its tier',
    );
    const again = await orgPost(t, 'acme-bob', admin, 'checkout');
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().detail, 'Your organisation already has an active subscription');
    const portal = await orgPost(t, 'acme-bob', admin, 'portal');
    assert.equal(portal.statusCode, 200, portal.body);
    assert.match(portal.json().url, /^http:\/\/127\.0\.0\.1:\d+\//);
  });

  test('the subscription belongs to the organisation and carries its id', async () => {
    const org = (await orgBilling(t, 'acme-ann', member)).org;
    const [row] = await t.composition.db.query<{
      id: string;
      user_id: string | null;
      quantity: number;
    }>('SELECT id, user_id, quantity FROM subscriptions WHERE organization_id = $1', [org.id]);
    assert.equal(row!.user_id, null);
    const subscription = await simulatorClient(t).subscriptions.retrieve(row!.id);
    assert.deepEqual(subscription.metadata, { org_id: org.id });
    assert.equal(subscription.items.data[0]!.quantity, 3);
  });
});
