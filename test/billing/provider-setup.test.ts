// Start-up against the provider (the embedded simulator, through the real stripe SDK): the
// service's own billing portal configuration made, marked as its own, with every price of
// BILLING_PRICES, and used by every portal session; made once by instances starting together
// (the job lease); set back after a hand edit, with a log line; BILLING_PRICES contradicted by the
// provider refused naming the variable and the price; an unreachable provider not stopping
// start-up, and its portal refused until a portal call reaches the provider, never on the account's
// default configuration.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { OWN_CONFIGURATION_METADATA } from '../../src/adapters/payments/stripe-portal-configuration.ts';
import { databaseAdapters } from '../../src/composition/database.ts';
import { paymentsProvider } from '../../src/composition/payments.ts';
import {
  checkPrices,
  PriceMismatchError,
  setUpProvider,
} from '../../src/domain/billing/provider-setup.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { payWhileUnreachable } from '../helpers/cli.ts';
import { databaseLabel } from '../helpers/database.ts';
import { startFaultyProvider, type FaultyProvider } from '../helpers/faulty-provider.ts';

const PRICES =
  'pro=price_sim_pro,pro@year=price_sim_pro_year,team=price_sim_team,team@year=price_sim_team_year';

describe(`the provider at start-up (${databaseLabel})`, () => {
  let t: TestApp;
  let stripe: Stripe;
  before(async () => {
    t = await buildTestApp({ BILLING_PRICES: PRICES });
    stripe = createStripeClient(t.config.payments.apiKey, t.composition.simulatorUrl);
  });
  after(() => t.close());

  const own = async () =>
    (await stripe.billingPortal.configurations.list({ is_default: false })).data.filter(
      (c) => c.metadata?.managed_by === OWN_CONFIGURATION_METADATA.managed_by,
    );
  /** setUpProvider as another instance starting on the same database runs it; its log lines. */
  async function startInstance(holder: string) {
    const lines: string[] = [];
    const line = (_fields: object, message: string) => lines.push(message);
    const id = await setUpProvider(
      {
        payments: t.composition.payments,
        leases: databaseAdapters(t.composition.db, 'dropped').leases,
        holder,
        log: { info: line, warn: line },
      },
      t.config.catalog,
    );
    return { id, lines };
  }

  test('the configuration is made, marked as the service’s, with every price; portal sessions use it', async () => {
    const [configuration, ...others] = await own();
    assert.ok(configuration);
    assert.equal(others.length, 0);
    const update = configuration.features.subscription_update;
    assert.deepEqual(
      update.products?.map(({ product, prices }) => [product, prices]),
      [
        ['prod_sim_pro', ['price_sim_pro', 'price_sim_pro_year']],
        ['prod_sim_team', ['price_sim_team', 'price_sim_team_year']],
      ],
    );
    assert.deepEqual(
      [update.proration_behavior, update.default_allowed_updates],
      ['create_prorations', ['price']],
    );
    assert.deepEqual(
      update.schedule_at_period_end.conditions.map((c) => c.type),
      ['decreasing_item_amount', 'shortening_interval'],
    );
    assert.deepEqual(
      [configuration.features.subscription_cancel.mode, configuration.active],
      ['at_period_end', true],
    );

    await payWhileUnreachable(t, 'setup-portal');
    const portal = await t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/portal',
      headers: bearer(await t.token('setup-portal')),
      payload: {},
    });
    assert.equal(portal.statusCode, 200);
    const page = await (await fetch((portal.json() as { url: string }).url)).text();
    // The configuration's, not the account default's: no cancellation at once.
    assert.match(page, /Cancel at period end/);
    assert.doesNotMatch(page, /Cancel now/);
  });

  test('instances starting together make one configuration; a hand edit is set back, and the log says so', async () => {
    const [before] = await own();
    await stripe.billingPortal.configurations.update(before!.id, {
      metadata: { managed_by: '' },
    });
    const started = await Promise.all(['a', 'b', 'c'].map((name) => startInstance(name)));
    const made = await own();
    assert.equal(made.length, 1, 'one configuration');
    assert.deepEqual(
      started.map(({ id }) => id),
      [made[0]!.id, made[0]!.id, made[0]!.id],
    );
    assert.equal(started.flatMap(({ lines }) => lines).filter((l) => /made/.test(l)).length, 1);

    await stripe.billingPortal.configurations.update(made[0]!.id, {
      features: {
        subscription_update: {
          proration_behavior: 'always_invoice',
          products: [{ product: 'prod_sim_pro', prices: ['price_sim_pro'] }],
        },
      },
    });
    const restarted = await startInstance('d');
    assert.equal(restarted.id, made[0]!.id);
    assert.deepEqual(restarted.lines, [
      `portal configuration ${made[0]!.id} was changed at the provider (subscription_update.products, subscription_update.proration_behavior); set back`,
    ]);
    const [back] = await own();
    assert.equal(back!.features.subscription_update.proration_behavior, 'create_prorations');
    assert.equal(back!.features.subscription_update.products?.length, 2);
    assert.deepEqual((await startInstance('e')).lines, [], 'as it should be: nothing said');
  });

  test('BILLING_PRICES contradicted by the provider is refused, naming the variable and the price', async () => {
    const { payments } = t.composition;
    await assert.rejects(
      checkPrices(payments, [{ tier: 'pro', interval: 'year', price: 'price_sim_pro' }]),
      (error: unknown) => {
        assert.ok(error instanceof PriceMismatchError);
        assert.equal(
          error.message,
          'Invalid configuration: BILLING_PRICES names price_sim_pro as pro@year, but it recurs every month',
        );
        return true;
      },
    );
    await assert.rejects(
      checkPrices(payments, [{ tier: 'pro', interval: 'month', price: 'price_nowhere' }]),
      /^PriceMismatchError: Invalid configuration: BILLING_PRICES names price_nowhere \(pro@month\), which the provider does not have$/,
    );
  });

  test('an unreachable provider: start-up goes on, the configuration left to the first portal call', async () => {
    const lines: string[] = [];
    const line = (_fields: object, message: string) => lines.push(message);
    const unreachable = paymentsProvider(t.config, t.composition.logger, 'http://127.0.0.1:9');
    const id = await setUpProvider(
      {
        payments: unreachable,
        leases: databaseAdapters(t.composition.db, 'dropped').leases,
        holder: 'offline',
        log: { info: line, warn: line },
      },
      t.config.catalog,
    );
    assert.equal(id, null);
    assert.match(lines.join('\n'), /^the payment provider did not answer at start-up/);
  });
});

describe(`a service that started while the provider failed (${databaseLabel})`, () => {
  let provider: FaultyProvider;
  let t: TestApp;
  before(async () => {
    provider = await startFaultyProvider();
    provider.front.inject('GET', /^\/v1\/prices\//, { kind: 'fail' });
    t = await buildTestApp(provider.env);
    provider.front.clear();
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  const openPortal = async () =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/billing/portal',
      headers: bearer(await t.token('late-portal')),
      payload: {},
    });
  const sessionsMade = () =>
    provider.front.requests.filter(
      ({ method, path }) => method === 'POST' && path === '/v1/billing_portal/sessions',
    ).length;

  test('its portal is refused while the configuration is unknown, then opens on the service’s own', async () => {
    await payWhileUnreachable(t, 'late-portal');
    provider.front.inject('GET', /^\/v1\/billing_portal\/configurations/, { kind: 'fail' });
    const refused = await openPortal();
    assert.equal(refused.statusCode, 502, refused.body);
    assert.deepEqual(refused.json(), { detail: 'Payment provider unavailable' });
    assert.equal(sessionsMade(), 0, "never a session on the account's default configuration");

    provider.front.clear();
    const opened = await openPortal();
    assert.equal(opened.statusCode, 200, opened.body);
    const page = await (await fetch((opened.json() as { url: string }).url)).text();
    assert.match(page, /Cancel at period end/);
    assert.doesNotMatch(page, /Cancel now/);
    const lookups = provider.front.requests.length;
    assert.equal((await openPortal()).statusCode, 200);
    assert.equal(provider.front.requests.length - lookups, 1, 'once known, only the session');
  });
});
