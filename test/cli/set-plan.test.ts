// setPlan, in-process on both databases: it changes the price of the user's next checkout, only to
// a tier of BILLING_PRICES, only for a user that exists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnknownPlanError, UnknownUserError } from '../../src/domain/billing/operator-errors.ts';
import { setPlan } from '../../src/domain/billing/set-plan.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { tierOf } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';

describe(`set-plan (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const users = () => t.composition.store.users;

  test('sets the plan, and the next checkout uses its price', async () => {
    await tierOf(t, 'plan-anna');
    assert.deepEqual(await setPlan(users(), t.config.prices, 'plan-anna', 'team'), {
      idpId: 'plan-anna',
      previous: null,
      plan: 'team',
    });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/checkout',
      headers: bearer(await t.token('plan-anna')),
      payload: {},
    });
    assert.equal(response.statusCode, 200);
    const sessionId = response.json().url.split('/').pop();
    const [row] = await t.composition.db.query<{ price_id: string }>(
      'SELECT price_id FROM checkout_sessions WHERE id = $1',
      [sessionId],
    );
    assert.equal(row!.price_id, 'price_sim_team');
  });

  test('reports the previous plan and leaves the tier alone', async () => {
    await tierOf(t, 'plan-bert');
    await setPlan(users(), t.config.prices, 'plan-bert', 'team');
    assert.deepEqual(await setPlan(users(), t.config.prices, 'plan-bert', 'pro'), {
      idpId: 'plan-bert',
      previous: 'team',
      plan: 'pro',
    });
    assert.equal(await tierOf(t, 'plan-bert'), 'free');
  });

  test('a plan outside BILLING_PRICES is refused, "free" included', async () => {
    await tierOf(t, 'plan-cleo');
    for (const plan of ['gold', 'free', 'PRO', '']) {
      await assert.rejects(setPlan(users(), t.config.prices, 'plan-cleo', plan), UnknownPlanError);
    }
    const [row] = await t.composition.db.query<{ plan: string | null }>(
      "SELECT plan FROM users WHERE idp_id = 'plan-cleo'",
    );
    assert.equal(row!.plan, null);
  });

  test('an unknown user is refused and not created', async () => {
    await assert.rejects(
      setPlan(users(), t.config.prices, 'plan-nobody', 'team'),
      UnknownUserError,
    );
    assert.equal(await users().findByIdpId('plan-nobody'), null);
  });
});
