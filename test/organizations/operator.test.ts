// The operator's side of organisations: a reconciliation stores an organisation's subscription made
// elsewhere (by our id in its metadata, or its linked customer); link-customer --org adopts a
// customer for an organisation and refuses, with the reason, a customer that is a user's (and a
// user may not take an organisation's); set-plan --org prices its next checkout; npm run token
// mints organisation and service tokens the service accepts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { linkCustomer, linkOrganizationCustomer } from '../../src/domain/billing/link-customer.ts';
import {
  LinkRefusedError,
  UnknownOrganizationError,
} from '../../src/domain/billing/operator-errors.ts';
import { reconcile } from '../../src/domain/billing/reconcile.ts';
import { setOrganizationPlan } from '../../src/domain/billing/set-plan.ts';
import { bearer, buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { customerOfCheckout } from '../helpers/checkout.ts';
import { operatorDeps, operatorEnv, runCli } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';
import { orgBilling, orgPost } from '../helpers/organizations.ts';
import { drift, simulatorClient } from '../helpers/simulator-client.ts';

describe(`organisations for the operator (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const issuer = () => t.config.organizations!.issuer;
  const linkOrg = (idpOrgId: string, customerId: string) =>
    linkOrganizationCustomer(operatorDeps(t), { issuer: issuer(), idpOrgId }, customerId);
  const seen = (org: string) => orgBilling(t, `${org}-someone`, { org });

  test('a reconciliation stores a subscription made elsewhere for the organisation its metadata names', async () => {
    const { org } = await seen('made-elsewhere');
    const { subscription } = await drift(t, 'subscriptions', {
      email: 'billing@made-elsewhere.example',
      price: 'price_sim_team',
      'metadata[org_id]': org.id,
    });
    const result = await reconcile(operatorDeps(t));
    assert.equal(
      result.changes.find((c) => c.subscription.id === subscription.id)?.verdict,
      'repaired',
    );
    assert.equal((await seen('made-elsewhere')).tier, 'team');
  });

  test('link-customer --org adopts a customer for an organisation; the tier follows', async () => {
    await seen('adopter');
    const { customer } = await drift(t, 'subscriptions', {
      email: 'billing@adopter.example',
      price: 'price_sim_pro',
    });
    const result = await linkOrg('adopter', customer.id);
    assert.deepEqual(
      [result.idpId, result.alreadyLinked, result.repaired, result.tierBefore, result.tierAfter],
      ['adopter', false, 1, 'free', 'pro'],
    );
    assert.equal((await seen('adopter')).tier, 'pro');
    assert.equal((await linkOrg('adopter', customer.id)).alreadyLinked, true);
  });

  test("never crossed: a user's customer is refused for an organisation, an organisation's for a user", async () => {
    await seen('crossing');
    const usersCustomer = await customerOfCheckout(t, 'crossing-user');
    await assert.rejects(linkOrg('crossing', usersCustomer), {
      name: 'LinkRefusedError',
      message: `customer ${usersCustomer} is already linked to user crossing-user`,
    });
    const orgsCheckout = await orgPost(
      t,
      'crossing-admin',
      { org: 'crossing', role: 'owner' },
      'checkout',
    );
    assert.equal(orgsCheckout.statusCode, 200, orgsCheckout.body);
    const orgsCustomer = (await t.composition.store.organizations.findByIdpOrgId(
      issuer(),
      'crossing',
    ))!.paymentsCustomerId!;
    await profileId(t, 'crossing-other');
    await assert.rejects(linkCustomer(operatorDeps(t), 'crossing-other', orgsCustomer), {
      name: 'LinkRefusedError',
      message: `customer ${orgsCustomer} is already linked to organisation crossing`,
    });
    await assert.rejects(linkOrg('crossing', 'cus_other'), {
      name: 'LinkRefusedError',
      message: `organisation crossing is already linked to customer ${orgsCustomer}`,
    });
    await assert.rejects(linkOrg('nobody-knows', orgsCustomer), UnknownOrganizationError);
    await assert.rejects(linkOrg('adopter', 'cus_nonexistent'), LinkRefusedError);
  });

  test("set-plan for an organisation prices its next checkout; the organisations' default otherwise", async () => {
    await seen('priced');
    const change = await setOrganizationPlan(
      t.composition.store.organizations,
      t.config.prices,
      { issuer: issuer(), idpOrgId: 'priced' },
      'pro',
    );
    assert.deepEqual(change, { idpId: 'priced', previous: null, plan: 'pro' });
    assert.equal((await seen('priced')).plan, 'pro');
    const { url } = (
      await orgPost(t, 'priced-admin', { org: 'priced', role: 'admin' }, 'checkout')
    ).json();
    const items = await simulatorClient(t).checkout.sessions.listLineItems(url.split('/').pop()!);
    assert.equal(items.data[0]!.price?.id, 'price_sim_pro');
    await assert.rejects(
      setOrganizationPlan(
        t.composition.store.organizations,
        t.config.prices,
        { issuer: issuer(), idpOrgId: 'priced' },
        'gold',
      ),
      /unknown plan "gold"/,
    );
  });

  test('npm run token mints organisation and service tokens the service accepts', async () => {
    const run = await runCli(
      [
        'token',
        '--sub',
        'cli-ann',
        '--email',
        'ann@example.com',
        '--org',
        'cli-co',
        '--role',
        'owner',
        '--role',
        'billing',
      ],
      t.env,
    );
    assert.equal(run.code, 0, run.stderr);
    const token = run.stdout.trim();
    assert.deepEqual(
      [decodeJwt(token).org_id, decodeJwt(token).org_role],
      ['cli-co', ['owner', 'billing']],
    );
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/orgs/current/billing',
      headers: bearer(token),
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      [response.json().org.idp_org_id, response.json().can_manage],
      ['cli-co', true],
    );
    const service = await runCli(['token', '--sub', 'backend', '--service'], t.env);
    assert.equal(service.code, 0, service.stderr);
    const backend = decodeJwt(service.stdout.trim());
    assert.deepEqual(
      [backend.scope, backend.email, backend.client_id],
      ['billing:seats billing:credits', undefined, 'billing-dev-backend'],
    );
    const spent = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/spend',
      headers: bearer(service.stdout.trim()),
      payload: {
        subject: { type: 'organization', idp_id: 'cli-co' },
        amount: 1,
        idempotency_key: 'cli',
      },
    });
    assert.deepEqual(
      [spent.statusCode, spent.json()],
      [200, { balance: 99 }],
      "the backend's token spends: the free tier's 100 of the month, less 1",
    );
    const named = await runCli(['token', '--service', '--org', 'cli-co'], t.env);
    assert.equal(named.code, 2);
    assert.match(named.stderr, /names no organisation/);
    const noOrg = await runCli(
      ['token', '--sub', 'x', '--email', 'x@example.com', '--role', 'admin'],
      t.env,
    );
    assert.equal(noOrg.code, 2);
    assert.match(noOrg.stderr, /--role needs --org/);
  });

  test(
    'the commands: link-customer --org and set-plan --org say what they did, or why not',
    { skip: !onPostgres && 'needs PostgreSQL: a second process cannot open the in-memory PGlite' },
    async () => {
      const env = operatorEnv(t);
      await seen('cli-org');
      const { customer } = await drift(t, 'subscriptions', {
        email: 'billing@cli-org.example',
        price: 'price_sim_team',
      });
      const linked = await runCli(['link-customer', '--org', 'cli-org', customer.id], env);
      assert.equal(linked.code, 0, linked.stderr);
      assert.deepEqual(linked.stdout.trim().split('\n'), [
        `linked: organisation cli-org -> ${customer.id}`,
        'subscriptions: 1 seen, 1 repaired, 0 unchanged, 0 not linked to any user',
        'tier before: free',
        'tier after: team',
      ]);
      const refused = await runCli(['link-customer', 'cli-org-someone', customer.id], env);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(
          `^error: customer ${customer.id} is already linked to organisation cli-org$`,
          'm',
        ),
      );
      const plan = await runCli(['set-plan', '--org', 'cli-org', 'pro'], env);
      assert.equal(plan.code, 0, plan.stderr);
      assert.equal(
        plan.stdout.trim(),
        'organisation cli-org: plan team (default) -> pro; it prices the next checkout, an existing subscription keeps its price',
      );
      const unknown = await runCli(['set-plan', '--org', 'no-such-org', 'pro'], env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^error: no organisation with idp_org_id "no-such-org"/m);
    },
  );
});
