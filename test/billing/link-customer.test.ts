// Adopting a customer made elsewhere: link-customer links it to a user and reconciles its
// subscriptions, so the tier follows; it refuses, with the reason, when either side is linked to
// someone else (or the customer's subscriptions are stored for someone else), when the provider
// has no such customer, and for an unknown user. The commands print one summary line and exit
// non-zero when refused or when a reconciliation is running already.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createJobLeases } from '../../src/adapters/database/job-leases.ts';
import { linkCustomer } from '../../src/domain/billing/link-customer.ts';
import { LinkRefusedError, UnknownUserError } from '../../src/domain/billing/operator-errors.ts';
import { reconcile } from '../../src/domain/billing/reconcile.ts';
import { buildTestApp, profileId, type TestApp } from '../helpers/app.ts';
import { customerOfCheckout } from '../helpers/checkout.ts';
import { operatorDeps, operatorEnv, runCli, tierOf } from '../helpers/cli.ts';
import { databaseLabel, onPostgres } from '../helpers/database.ts';
import { drift } from '../helpers/simulator-client.ts';

describe(`link-customer (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  const link = (idpId: string, customerId: string) =>
    linkCustomer(operatorDeps(t), idpId, customerId);
  const userId = (sub: string) => profileId(t, sub);

  test('a customer made elsewhere is linked and its subscriptions reconciled: the tier follows', async () => {
    const { customer, subscription } = await drift(t, 'subscriptions', {
      email: 'adopt@example.com',
      price: 'price_sim_team',
    });
    const found = await reconcile(operatorDeps(t));
    assert.equal(
      found.changes.find((c) => c.subscription.id === subscription.id)?.verdict,
      'unlinked',
    );
    await userId('adopt');
    const result = await link('adopt', customer.id);
    assert.deepEqual(
      { ...result },
      {
        idpId: 'adopt',
        customerId: customer.id,
        alreadyLinked: false,
        seen: 1,
        repaired: 1,
        unchanged: 0,
        unlinked: 0,
        tierBefore: 'free',
        tierAfter: 'team',
      },
    );
    assert.equal(await tierOf(t, 'adopt'), 'team');
    const again = await link('adopt', customer.id);
    assert.equal(again.alreadyLinked, true);
    assert.deepEqual([again.repaired, again.unchanged], [0, 1]);
  });

  test('refused when the user is linked to another customer', async () => {
    const own = await customerOfCheckout(t, 'linked-user');
    const { customer } = await drift(t, 'subscriptions', {
      email: 'other@example.com',
      price: 'price_sim_pro',
    });
    await assert.rejects(link('linked-user', customer.id), {
      name: 'LinkRefusedError',
      message: `user linked-user is already linked to customer ${own}`,
    });
  });

  test('refused when the customer is linked to another user', async () => {
    const theirs = await customerOfCheckout(t, 'owner');
    await userId('newcomer');
    await assert.rejects(link('newcomer', theirs), {
      name: 'LinkRefusedError',
      message: `customer ${theirs} is already linked to user owner`,
    });
  });

  test("refused when the customer's subscriptions are stored for another user", async () => {
    await customerOfCheckout(t, 'holder'); // linked to a customer of its own, so the one below is not linked
    const { customer } = await drift(t, 'subscriptions', {
      email: 'held@example.com',
      price: 'price_sim_pro',
      'metadata[user_id]': await userId('holder'),
    });
    await reconcile(operatorDeps(t));
    await userId('claimant');
    await assert.rejects(link('claimant', customer.id), {
      name: 'LinkRefusedError',
      message: `customer ${customer.id} has subscriptions stored for user holder`,
    });
  });

  test('refused when the provider has no such customer, and for an unknown user', async () => {
    await userId('hopeful');
    await assert.rejects(link('hopeful', 'cus_nonexistent'), LinkRefusedError);
    await assert.rejects(link('hopeful', 'cus_nonexistent'), {
      message: 'the payment provider has no customer cus_nonexistent',
    });
    await assert.rejects(link('nobody-at-all', 'cus_nonexistent'), UnknownUserError);
    assert.equal(
      (await t.composition.store.users.findByIdpId('hopeful'))!.paymentsCustomerId,
      null,
    );
  });

  test(
    'the commands: reconcile prints one summary line (and, dry, what it would change); link-customer says what it did or why not',
    { skip: !onPostgres && 'needs PostgreSQL: a second process cannot open the in-memory PGlite' },
    async () => {
      const env = operatorEnv(t);
      const { customer, subscription } = await drift(t, 'subscriptions', {
        email: 'cli-adopt@example.com',
        price: 'price_sim_pro',
      });
      const dry = await runCli(['reconcile', '--dry-run'], env);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(
        dry.stdout,
        new RegExp(`^not linked: ${subscription.id} \\(customer ${customer.id}\\)`, 'm'),
      );
      assert.match(
        dry.stdout.trim().split('\n').at(-1)!,
        /^dry run, nothing changed: \d+ subscription\(s\) seen, \d+ would be repaired, \d+ unchanged, \d+ not linked to any user$/,
      );

      await userId('cli-adopt');
      const linked = await runCli(['link-customer', 'cli-adopt', customer.id], env);
      assert.equal(linked.code, 0, linked.stderr);
      assert.deepEqual(linked.stdout.trim().split('\n'), [
        `linked: cli-adopt -> ${customer.id}`,
        'subscriptions: 1 seen, 1 repaired, 0 unchanged, 0 not linked to any user',
        'tier before: free',
        'tier after: pro',
      ]);
      const refused = await runCli(['link-customer', 'adopt', customer.id], env);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        new RegExp(`^error: user adopt is already linked to customer cus_\\w+$`, 'm'),
      );

      const run = await runCli(['reconcile'], env);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.trim().split('\n');
      assert.equal(lines.length, 1, run.stdout);
      assert.match(
        lines[0]!,
        /^reconciled \d+ subscription\(s\): 0 repaired, \d+ unchanged, \d+ not linked to any user$/,
      );

      // While another reconciliation holds the lease (a scheduled one, another operator): refused.
      const leases = createJobLeases(t.composition.db);
      assert.ok(await leases.claim('reconcile', 'another-instance', 60_000, 0));
      const busy = await runCli(['reconcile'], env);
      assert.equal(busy.code, 1);
      assert.match(
        busy.stderr,
        /^error: a reconciliation is running already \(another-instance, since .*\): run this again when it has ended$/m,
      );
      await leases.release('reconcile', 'another-instance');
    },
  );
});
