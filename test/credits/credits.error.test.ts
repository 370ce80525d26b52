// What the credits operations refuse (contract section 14, and section 11's BILLING_SERVICE_CLIENTS):
// a spend's body out of its bounds (an amount given as a string, 0 or above 1,000,000; a key that is
// not printable ASCII; a reason over 200 characters) and the ledger's limit and before: 422; a spend
// by anything but the application's backend (an end user's token, a manager's with the scope, a
// client not listed): 403; an unknown pack: 422 at ["body", "pack"]; no packs for sale: 409; an
// organisation's pack bought by a non-manager: 403, by a manager: a one-time Checkout Session of
// the pack's price on the organisation's customer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UNREAD_METRICS } from '../../src/adapters/metrics/unread.ts';
import { tierPolicy } from '../../src/composition.ts';
import { creditsPolicy } from '../../src/composition/services.ts';
import { DEV_SERVICE_CLIENT } from '../../src/config.ts';
import { adjustCredits } from '../../src/domain/credits/credit-operator.ts';
import type { TokenClaims } from '../../src/dev/identity-provider.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';
import { memberToken } from '../helpers/organizations.ts';
import { REFUSED_URLS } from '../helpers/refused-urls.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const SERVICE_CLAIMS = {
  client_id: DEV_SERVICE_CLIENT,
  scope: 'billing:credits',
  gty: 'client-credentials',
};

const serviceToken = (t: TestApp, extra: Record<string, unknown> = SERVICE_CLAIMS) =>
  t.token('backend', undefined, { email: undefined, extra } as Partial<TokenClaims>);

const JSON_BODY = { 'content-type': 'application/json' };

const VALID_SPEND = {
  subject: { type: 'user', idp_id: 'err-spender' },
  amount: 3,
  idempotency_key: 'err-key-valid',
};

describe(`credits errors (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      APP_URL: 'https://app.example.test',
      BILLING_CHECKOUT_RATE_LIMIT: '1000',
    });
  });
  after(() => t.close());

  const spend = async (body: unknown, token?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/spend',
      headers: { ...bearer(token ?? (await serviceToken(t))), ...JSON_BODY },
      payload: JSON.stringify(body),
    });

  const checkout = async (token: string, body: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/checkout',
      headers: { ...bearer(token), ...JSON_BODY },
      payload: JSON.stringify(body),
    });

  /** The balance of err-spender as the backend sees it: a spend of 1,000,000 refused says it. */
  const balanceOfSpender = async () => {
    const refused = await spend({
      ...VALID_SPEND,
      amount: 1_000_000,
      idempotency_key: `err-probe-${Math.random()}`,
    });
    assert.equal(refused.statusCode, 402, refused.body);
    return refused.json().balance as number;
  };

  const assert422 = (
    response: { statusCode: number; body: string; json(): unknown },
    loc: unknown[],
  ) => {
    assert.equal(response.statusCode, 422, response.body);
    const { detail } = response.json() as { detail: { loc: unknown[] }[] };
    assert.ok(
      detail.some((item) => JSON.stringify(item.loc) === JSON.stringify(loc)),
      `an item at ${JSON.stringify(loc)} in ${response.body}`,
    );
  };

  test('no token: 401 on every credits operation, before the body is read', async () => {
    for (const [method, url, payload] of [
      ['GET', '/api/v1/credits', undefined],
      ['GET', '/api/v1/credits/ledger?limit=0', undefined],
      ['POST', '/api/v1/credits/checkout', { pack: 'nope' }],
      ['POST', '/api/v1/credits/spend', { amount: 'x' }],
    ] as const) {
      const response = await t.app.inject({ method, url, ...(payload && { payload }) });
      assert.equal(response.statusCode, 401, `${method} ${url}: ${response.body}`);
    }
  });

  test('a spend body out of bounds: 422 at the field, nothing spent', async () => {
    const before = await balanceOfSpender();
    for (const [change, loc] of [
      [{ amount: '3' }, ['body', 'amount']],
      [{ amount: 0 }, ['body', 'amount']],
      [{ amount: -1 }, ['body', 'amount']],
      [{ amount: 1_000_001 }, ['body', 'amount']],
      [{ amount: 2.5 }, ['body', 'amount']],
      [{ idempotency_key: 'tab\there' }, ['body', 'idempotency_key']],
      [{ idempotency_key: 'caf\u00e9' }, ['body', 'idempotency_key']],
      [{ idempotency_key: '' }, ['body', 'idempotency_key']],
      [{ idempotency_key: 'k'.repeat(256) }, ['body', 'idempotency_key']],
      [{ reason: 'r'.repeat(201) }, ['body', 'reason']],
      [{ subject: { type: 'team', idp_id: 'err-spender' } }, ['body', 'subject', 'type']],
    ] as const) {
      const response = await spend({ ...VALID_SPEND, ...change });
      assert422(response, [...loc]);
    }
    const { amount: _, ...noAmount } = VALID_SPEND;
    assert422(await spend(noAmount), ['body', 'amount']);
    assert.equal(await balanceOfSpender(), before, 'nothing was spent');
    const edge = await spend({
      ...VALID_SPEND,
      amount: 1,
      idempotency_key: '~'.repeat(255),
      reason: 'r'.repeat(200),
    });
    assert.equal(edge.statusCode, 200, edge.body);
    assert.equal(edge.json().balance, before - 1);
  });

  test('a key used for another subject: 409 with a detail, nothing spent on either', async () => {
    const first = await spend({ ...VALID_SPEND, amount: 2, idempotency_key: 'err-key-shared' });
    assert.equal(first.statusCode, 200, first.body);
    const before = await balanceOfSpender();
    const other = await spend({
      subject: { type: 'user', idp_id: 'err-other' },
      amount: 2,
      idempotency_key: 'err-key-shared',
    });
    assert.equal(other.statusCode, 409, other.body);
    assert.equal(typeof other.json().detail, 'string');
    const otherBalance = await spend({
      subject: { type: 'user', idp_id: 'err-other' },
      amount: 1_000_000,
      idempotency_key: 'err-other-probe',
    });
    assert.equal(otherBalance.json().balance, 100, "the other's free month, untouched");
    assert.equal(await balanceOfSpender(), before);
  });

  test('the same key again gets the first answer, a refusal included, even once the balance would allow it', async () => {
    const refused = await spend({
      subject: { type: 'user', idp_id: 'err-replay' },
      amount: 150,
      idempotency_key: 'err-key-refused',
    });
    assert.equal(refused.statusCode, 402, refused.body);
    assert.equal(refused.json().balance, 100);
    await adjustCredits(
      {
        store: t.composition.store,
        policy: tierPolicy(t.config),
        credits: creditsPolicy(t.config, UNREAD_METRICS),
        issuer: null,
      },
      { type: 'user', idpId: 'err-replay' },
      { delta: 100, reason: 'top-up' },
    );
    const again = await spend({
      subject: { type: 'user', idp_id: 'err-replay' },
      amount: 150,
      idempotency_key: 'err-key-refused',
    });
    assert.equal(again.statusCode, 402);
    assert.deepEqual(again.json(), refused.json());
    const fresh = await spend({
      subject: { type: 'user', idp_id: 'err-replay' },
      amount: 150,
      idempotency_key: 'err-key-fresh',
    });
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.deepEqual(fresh.json(), { balance: 50 });
  });

  test('the ledger: limit 0 or 201, before not an entry id: 422; limit 1 and 200 are fine', async () => {
    const token = await t.token('err-reader');
    const read = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/credits/ledger?${query}`,
        headers: bearer(token),
      });
    assert422(await read('limit=0'), ['query', 'limit']);
    assert422(await read('limit=201'), ['query', 'limit']);
    assert422(await read('limit=-1'), ['query', 'limit']);
    assert422(await read('limit=ten'), ['query', 'limit']);
    assert422(await read('before=abc'), ['query', 'before']);
    assert422(await read('before=0'), ['query', 'before']);
    for (const query of ['limit=1', 'limit=200', 'limit=50&before=1']) {
      const response = await read(query);
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
    }
  });

  test("a spend by an end user's token, even a manager's, or by a client not listed: 403, nothing spent", async () => {
    const before = await balanceOfSpender();
    const refusedTokens = {
      'an end user': await t.token('err-person'),
      'an end user with the scope': await t.token('err-person', undefined, {
        extra: { scope: 'billing:credits' },
      }),
      "a manager's with org claims, the scope and a listed client": await t.token(
        'err-manager',
        undefined,
        { extra: { ...SERVICE_CLAIMS, org_id: 'errco', org_role: 'owner' } },
      ),
      'the backend with an e-mail': await t.token('backend', 'backend@example.com', {
        extra: SERVICE_CLAIMS,
      }),
      'the scope from a client not listed': await serviceToken(t, {
        ...SERVICE_CLAIMS,
        client_id: 'someone-else',
      }),
      'the scope and no client': await serviceToken(t, {
        scope: 'billing:credits',
        gty: 'client-credentials',
      }),
      'a listed client without the scope': await serviceToken(t, {
        ...SERVICE_CLAIMS,
        scope: 'billing:seats',
      }),
      'a listed client, another grant type': await serviceToken(t, {
        ...SERVICE_CLAIMS,
        gty: 'password',
      }),
    };
    for (const [who, token] of Object.entries(refusedTokens)) {
      const response = await spend(
        { ...VALID_SPEND, amount: 1, idempotency_key: `err-403-${who}` },
        token,
      );
      assert.equal(response.statusCode, 403, `${who}: ${response.body}`);
      assert.equal(typeof response.json().detail, 'string');
    }
    assert.equal(await balanceOfSpender(), before, 'nothing was spent');
  });

  test('an unknown pack: 422 at ["body", "pack"]', async () => {
    const token = await t.token('err-buyer');
    for (const pack of ['huge', 'SMALL', '']) {
      const response = await checkout(token, { pack });
      assert422(response, ['body', 'pack']);
    }
    assert422(await checkout(token, {}), ['body', 'pack']);
    assert422(await checkout(token, { pack: 5 }), ['body', 'pack']);
  });

  test('return URLs are checked as for a checkout: 422 url_not_allowed at the field', async () => {
    const token = await t.token('err-returner');
    for (const field of ['success_url', 'cancel_url'])
      for (const url of REFUSED_URLS) {
        const response = await checkout(token, { pack: 'small', [field]: url });
        assert.equal(response.statusCode, 422, `${field} ${url.slice(0, 40)}: ${response.body}`);
        const [item] = response.json().detail;
        assert.deepEqual(item.loc, ['body', field]);
        assert.equal(item.type, 'url_not_allowed');
      }
  });

  test('a spend for an organisation the backend names: made on first sight, its own balance', async () => {
    const response = await spend({
      subject: { type: 'organization', idp_id: 'err-new-org' },
      amount: 1,
      idempotency_key: 'err-org-spend',
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { balance: 99 }, "the free tier's 100, less the spend");
    const [row] = await t.composition.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM organizations WHERE idp_org_id = 'err-new-org'",
    );
    assert.equal(row!.n, 1);
  });

  test("an organisation's pack bought by a non-manager: 403, no session made", async () => {
    const member = await memberToken(t, 'err-org-member', 'errpackco', 'member');
    const before = await simulatorClient(t).checkout.sessions.list({ limit: 100 });
    for (const token of [
      member,
      await memberToken(t, 'err-org-nobody', 'errpackco'),
      await memberToken(t, 'err-org-billing', 'errpackco', 'billing'),
    ]) {
      const refused = await checkout(token, { pack: 'small' });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(typeof refused.json().detail, 'string');
    }
    const after = await simulatorClient(t).checkout.sessions.list({ limit: 100 });
    assert.equal(after.data.length, before.data.length);
  });

  test("an organisation's pack bought by a manager: a one-time checkout of the pack on the organisation's customer", async () => {
    const owner = await memberToken(t, 'err-org-owner', 'errpackco', 'owner');
    const bought = await checkout(owner, { pack: 'large' });
    assert.equal(bought.statusCode, 200, bought.body);
    const summary = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(owner),
    });
    const org = summary.json().subject;
    assert.equal(org.type, 'organization');
    const stripe = simulatorClient(t);
    const id = new URL(bought.json().url).pathname.split('/').pop()!;
    const session = await stripe.checkout.sessions.retrieve(id);
    assert.equal(session.mode, 'payment');
    assert.equal(session.client_reference_id, org.id);
    assert.equal(session.metadata?.credit_pack, 'large');
    const [row] = await t.composition.db.query<{ payments_customer_id: string }>(
      "SELECT payments_customer_id FROM organizations WHERE idp_org_id = 'errpackco'",
    );
    assert.equal(session.customer, row!.payments_customer_id);
    const items = await stripe.checkout.sessions.listLineItems(id);
    assert.equal(items.data.length, 1);
    assert.equal(items.data[0]!.price!.id, 'price_sim_credits_large');
    assert.equal(items.data[0]!.quantity, 1);
    assert.equal(session.subscription, null);
  });

  test('the body never chooses a price, an amount or a subject', async () => {
    const token = await t.token('err-chooser');
    for (const extra of [
      { price: 'price_sim_pro' },
      { quantity: 10 },
      { amount: 1 },
      { subject: { type: 'user', idp_id: 'someone' } },
    ]) {
      const response = await checkout(token, { pack: 'small', ...extra });
      if (response.statusCode === 200) {
        const id = new URL(response.json().url).pathname.split('/').pop()!;
        const stripe = simulatorClient(t);
        const items = await stripe.checkout.sessions.listLineItems(id);
        assert.equal(items.data[0]!.price!.id, 'price_sim_credits_small', JSON.stringify(extra));
        assert.equal(items.data[0]!.quantity, 1, JSON.stringify(extra));
      } else assert.equal(response.statusCode, 422, response.body);
    }
  });
});

describe(`credits with no packs for sale (${databaseLabel})`, () => {
  let t: TestApp;
  before(async () => {
    // A provider of one's own (PAYMENTS_API_KEY) and BILLING_CREDIT_PACKS unset: nothing to buy.
    // The 409 is decided before the provider is asked, so an unreachable one does.
    t = await buildTestApp({
      BILLING_CHECKOUT_RATE_LIMIT: '2',
      PAYMENTS_API_KEY: 'sk_test_x',
      PAYMENTS_API_BASE: 'http://127.0.0.1:9',
      PAYMENTS_WEBHOOK_SECRET: 'whsec_x',
      BILLING_PRICES: 'pro=price_1',
    });
  });
  after(() => t.close());

  test('a checkout: 409 with a detail; the credits list no packs', async () => {
    const token = await t.token('nopack-buyer');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credits/checkout',
      headers: bearer(token),
      payload: { pack: 'small' },
    });
    assert.equal(response.statusCode, 409, response.body);
    assert.match(response.json().detail, /BILLING_CREDIT_PACKS/);
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/v1/credits',
      headers: bearer(token),
    });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json().packs, []);
  });

  test('pack checkouts count toward the per-user checkout limit (here 2 a minute): 429', async () => {
    const token = await t.token('nopack-hurried');
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/v1/credits/checkout',
            headers: bearer(token),
            payload: { pack: 'small' },
          })
        ).statusCode,
      );
    assert.deepEqual(statuses, [409, 409, 429]);
  });
});
