// link-customer never gives a subscription away: a customer whose subscription at the provider
// names another of our users (or organisations) in its metadata, made for them with its events
// lost so nothing is stored, is refused with the reason and nothing changes; the subject it names
// can still adopt it. Ids in metadata that are not ours (another system's) do not refuse.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { linkCustomer } from '../../src/domain/billing/link-customer.ts';
import { buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { operatorDeps, operatorEnv, runCli, tierOf } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';
import { drift } from '../helpers/simulator-client.ts';

const ORG = '00000000-0000-4000-8000-00000000a11c';

describe(`link-customer and the provider's metadata (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
    await t.composition.db.exec(
      `INSERT INTO organizations (id, issuer, idp_org_id) VALUES ('${ORG}', 'https://issuer', 'acme')`,
    );
  });
  after(() => t.close());

  const customerOf = async (sub: string) =>
    (await t.composition.store.users.findByIdpId(sub))!.paymentsCustomerId;
  /** A customer with a subscription made at the provider, its metadata as given; no event reaches us. */
  const madeAtProvider = (metadata: Record<string, string>) =>
    drift(t, 'subscriptions', {
      email: 'made-elsewhere@example.com',
      price: 'price_sim_pro',
      ...Object.fromEntries(Object.entries(metadata).map(([k, v]) => [`metadata[${k}]`, v])),
    });

  test('refused when a subscription at the provider names another user; that user can adopt it', async () => {
    const { customer, subscription } = await madeAtProvider({ user_id: await profileId(t, 'bob') });
    await profileId(t, 'alice');
    await assert.rejects(linkCustomer(operatorDeps(t), 'alice', customer.id), {
      name: 'LinkRefusedError',
      message: `customer ${customer.id} has subscription ${subscription.id} made for user bob (its metadata names them at the payment provider)`,
    });
    assert.deepEqual([await customerOf('alice'), await tierOf(t, 'alice')], [null, 'free']);
    const adopted = await linkCustomer(operatorDeps(t), 'bob', customer.id);
    assert.equal(adopted.tierAfter, 'pro');
  });

  test('refused when a subscription at the provider names an organisation', async () => {
    const { customer, subscription } = await madeAtProvider({ org_id: ORG });
    await profileId(t, 'carol');
    await assert.rejects(linkCustomer(operatorDeps(t), 'carol', customer.id), {
      name: 'LinkRefusedError',
      message: `customer ${customer.id} has subscription ${subscription.id} made for organisation acme (its metadata names them at the payment provider)`,
    });
    assert.equal(await customerOf('carol'), null);
  });

  test("the user's own id, or another system's ids, do not refuse", async () => {
    const own = await madeAtProvider({ user_id: await profileId(t, 'dave') });
    assert.equal((await linkCustomer(operatorDeps(t), 'dave', own.customer.id)).tierAfter, 'pro');
    const legacy = await madeAtProvider({ user_id: '42', org_id: 'team-7' });
    await profileId(t, 'erin');
    assert.equal(
      (await linkCustomer(operatorDeps(t), 'erin', legacy.customer.id)).tierAfter,
      'pro',
    );
  });

  test(
    'the command: exit 1, the reason on stderr, nothing changed',
    { skip: !onPostgres && 'needs PostgreSQL: a second process cannot open the in-memory PGlite' },
    async () => {
      const { customer, subscription } = await madeAtProvider({
        user_id: await profileId(t, 'frank'),
      });
      await profileId(t, 'grace');
      const refused = await runCli(['link-customer', 'grace', customer.id], operatorEnv(t));
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(
        refused.stderr,
        new RegExp(
          `^error: customer ${customer.id} has subscription ${subscription.id} made for user frank \\(its metadata names them at the payment provider\\)$`,
          'm',
        ),
      );
      assert.deepEqual([await customerOf('grace'), await tierOf(t, 'grace')], [null, 'free']);
    },
  );
});
