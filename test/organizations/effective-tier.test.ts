// The tier a member gets, from one function (effectiveTier): the higher of their own subscription's
// and the organisation's their token names, free lowest, the tiers in the order of BILLING_PRICES;
// where it comes from (tier_source); a token naming no organisation gets its own tier only; and the
// personal checkout refused to whoever already has the tier it sells through their organisation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { effectiveTier, type TierPolicy } from '../../src/domain/billing/tier.ts';
import type { SubscriptionState } from '../../src/domain/model/subscriptions.ts';
import { bearer, buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { asMember, memberTier, orgBilling } from '../helpers/organizations.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const POLICY: TierPolicy = {
  tierByPrice: new Map([
    ['price_pro', 'pro'],
    ['price_team', 'team'],
  ]),
  graceDays: 7,
};

const live = (priceId: string): SubscriptionState => ({
  id: `sub_${priceId}`,
  owner: { type: 'user', id: 'u' },
  customerId: 'cus_1',
  status: 'active',
  priceId,
  itemId: 'si_1',
  quantity: 1,
  cancelAtPeriodEnd: false,
  cancelAt: null,
  currentPeriodEnd: null,
  trialEnd: null,
  createdAt: new Date(),
  paymentFailedAt: null,
  asOf: 0,
  revision: 0,
});

describe('effectiveTier', () => {
  test('the higher of the two, and where it comes from; the organisation wins a tie', () => {
    const cases: [SubscriptionState | null, SubscriptionState | null, string, string | null][] = [
      [null, null, 'free', null],
      [live('price_pro'), null, 'pro', 'user'],
      [null, live('price_pro'), 'pro', 'organization'],
      [live('price_pro'), live('price_team'), 'team', 'organization'],
      [live('price_team'), live('price_pro'), 'team', 'user'],
      [live('price_team'), live('price_team'), 'team', 'organization'],
      [live('price_unknown'), null, 'free', null],
      [{ ...live('price_team'), status: 'canceled' }, live('price_pro'), 'pro', 'organization'],
    ];
    for (const [own, theirs, tier, source] of cases)
      assert.deepEqual(effectiveTier(own, theirs, POLICY), { tier, source }, `${tier} ${source}`);
  });
});

describe(`the tier a member gets (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  /** A live subscription to `priceId` for a user or an organisation, as its webhook stores it. */
  async function subscribe(owner: { user_id: string } | { org_id: string }, priceId: string) {
    const event = eventOf(
      'customer.subscription.created',
      subscriptionObject({ metadata: owner, priceId }),
    );
    assert.equal((await deliver(t.app, event)).statusCode, 200);
  }
  const orgId = async (org: string) => (await orgBilling(t, `${org}-looker`, { org })).org.id;
  const summary = async (sub: string, org?: string) =>
    (
      await asMember(t, sub, { org }, { method: 'GET', url: '/api/v1/billing/subscription' })
    ).json();

  test("a member of a team organisation: team, from the organisation, with team's entitlements", async () => {
    await subscribe({ org_id: await orgId('teamco') }, 'price_sim_team');
    assert.equal(await memberTier(t, 'tina', 'teamco'), 'team');
    const body = await summary('tina', 'teamco');
    assert.deepEqual(
      [body.tier, body.tier_source, body.subscription],
      ['team', 'organization', null],
    );
    assert.ok(body.features.includes('sso'));
    assert.equal(
      await memberTier(t, 'tina'),
      'free',
      'no organisation in the token: own tier only',
    );
    assert.equal((await summary('tina')).tier_source, undefined);
  });

  test("the user's own higher tier wins, and says so", async () => {
    await subscribe({ org_id: await orgId('proco') }, 'price_sim_pro');
    await subscribe({ user_id: await profileId(t, 'ursula') }, 'price_sim_team');
    const body = await summary('ursula', 'proco');
    assert.deepEqual(
      [body.tier, body.tier_source, body.subscription.plan],
      ['team', 'user', 'team'],
    );
    const free = await summary('nobody-paid', 'freeco');
    assert.deepEqual([free.tier, free.tier_source], ['free', null]);
  });

  test('a personal checkout for a tier the organisation already gives: 409 saying so', async () => {
    const refused = await asMember(
      t,
      'tina',
      { org: 'teamco' },
      {
        method: 'POST',
        url: '/api/v1/billing/checkout',
        payload: {},
      },
    );
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(refused.json(), {
      detail: 'You already have the team tier through your organisation',
    });
    const below = await asMember(
      t,
      'paul',
      { org: 'proco' },
      {
        method: 'POST',
        url: '/api/v1/billing/checkout',
        payload: {},
      },
    );
    assert.equal(below.statusCode, 409, 'pro through the organisation covers the pro plan sold');
    const withoutOrg = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(await t.token('tina')),
      payload: {},
    });
    assert.equal(withoutOrg.statusCode, 200, 'a token naming no organisation checks out as before');
  });
});
