// The simulator against Stripe's own description of the pinned API version: every answer it gives
// to the calls the service makes (through the service's own payments adapter and the stripe SDK),
// and every event it sends, snapshot and thin, is validated against the JSON Schema derived from
// the pinned SDK's type declarations (stripe.schema.json; `npm run stripe-schema` regenerates it
// after an SDK upgrade). The schema keeps each enum as the pinned version names it (the SDK's
// `| string` dropped) and refuses fields the version does not have.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import type Stripe from 'stripe';
import { startPaymentsSimulator, type PaymentsSimulator } from '@billing/payments-simulator';
import { openPglite } from '../../src/adapters/database/pglite.ts';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import { createStripePayments } from '../../src/adapters/payments/stripe-payments.ts';
import type { ObjectNotice } from '../../src/domain/model/payment-events.ts';
import { bearer } from '../helpers/app.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { allDelivered } from '../helpers/deliveries.ts';
import {
  API_KEY,
  startDeliveringProvider,
  type DeliveringProvider,
} from '../helpers/delivering-provider.ts';
import type { SeenRequest } from '../helpers/faulty-front.ts';

const schema = JSON.parse(
  readFileSync(new URL('./stripe.schema.json', import.meta.url), 'utf8'),
) as {
  definitions: Record<string, { properties?: { type?: { const?: string } } }>;
};
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(schema, 'stripe');
const validators = new Map<string, ValidateFunction>();
const validatorOf = (definition: string): ValidateFunction => {
  let validate = validators.get(definition);
  if (validate === undefined) {
    validate = ajv.getSchema(`stripe#/definitions/${definition}`);
    assert.ok(validate, `no definition ${definition} in stripe.schema.json`);
    validators.set(definition, validate);
  }
  return validate;
};

/** The first few of `lines`, the same problem once (ids and indexes left out). */
const distinct = (lines: string[]): string[] =>
  [
    ...new Map(lines.map((line) => [line.replace(/\b[a-z]+_\w+|\/\d+\//g, '*'), line])).values(),
  ].slice(0, 8);

/** What is wrong with `value` as a `definition`, in a line each (at most a few); [] when nothing. */
function problems(definition: string, value: unknown): string[] {
  const validate = validatorOf(definition);
  if (validate(value)) return [];
  // anyOf reports every branch; the deepest paths say what is really wrong.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'anyOf');
  const deepest = Math.max(...errors.map((e) => e.instancePath.split('/').length));
  return errors
    .filter((e) => e.instancePath.split('/').length === deepest)
    .slice(0, 4)
    .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Each event type's own definition (`Events.CustomerSubscriptionUpdatedEvent`, ...). */
const EVENT_DEFINITIONS = new Map(
  Object.entries(schema.definitions).flatMap(([name, definition]) => {
    const type = definition.properties?.type?.const;
    return name.startsWith('Events.') && type !== undefined ? [[type, name] as const] : [];
  }),
);

/** The calls the service makes, by route, and what each answers. */
const ANSWERS: [method: string, path: RegExp, definition: string][] = [
  ['POST', /^\/v1\/customers$/, 'CustomerObject'],
  ['POST', /^\/v1\/checkout\/sessions$/, 'CheckoutSessionObject'],
  ['GET', /^\/v1\/checkout\/sessions\/[^/]+$/, 'CheckoutSessionObject'],
  ['GET', /^\/v1\/subscriptions\/[^/]+$/, 'SubscriptionObject'],
  ['GET', /^\/v1\/subscriptions$/, 'SubscriptionList'],
  ['GET', /^\/v1\/invoices\/[^/]+$/, 'InvoiceObject'],
  ['GET', /^\/v1\/events$/, 'EventList'],
  ['POST', /^\/v1\/billing_portal\/sessions$/, 'BillingPortalSessionObject'],
  ['GET', /^\/v1\/prices\/[^/]+$/, 'PriceObject'],
  ['GET', /^\/v1\/billing_portal\/configurations$/, 'BillingPortalConfigurationList'],
  ['POST', /^\/v1\/billing_portal\/configurations\/[^/]+$/, 'BillingPortalConfigurationObject'],
];

describe(
  `the simulator against the pinned API version's schema (${databaseLabel})`,
  onceInTheSuite,
  () => {
    test('the schema keeps the enums the SDK widens with `| string`: ui_mode "hosted" is refused', () => {
      const uiMode = problems('CheckoutSessionObject', { ui_mode: 'hosted' }).join(' ');
      assert.match(uiMode, /\/ui_mode must be equal to one of the allowed values/);
    });

    describe('every answer to the calls the service makes', () => {
      let p: DeliveringProvider;
      before(async () => {
        p = await startDeliveringProvider('snapshot');
        p.front.keepAnswers = true;
      });
      after(() => p.close());

      test('checkout, a second checkout, paying, the portal, reads, lists and replay, snapshot and thin', async () => {
        const checkout = async (sub: string) => {
          const response = await p.t.app.inject({
            method: 'POST',
            url: '/api/v1/billing/checkout',
            headers: bearer(await p.t.token(sub)),
            payload: {},
          });
          assert.equal(response.statusCode, 200, response.body);
          return response.json().url as string;
        };
        const url = await checkout('likeness');
        assert.equal(await checkout('likeness'), url, 'the open session reused (read back)');
        assert.equal(
          (await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' })).status,
          303,
        );
        const portal = await p.t.app.inject({
          method: 'POST',
          url: '/api/v1/billing/portal',
          headers: bearer(await p.t.token('likeness')),
          payload: {},
        });
        assert.equal(portal.statusCode, 200, portal.body);
        assert.equal((await p.sim('settings', 'webhook_payload=thin')).status, 200);
        const thinUrl = await checkout('likeness-thin');
        assert.equal(
          (await fetch(`${thinUrl}/pay`, { method: 'POST', redirect: 'manual' })).status,
          303,
        );

        // The adapter's remaining calls, as the operator commands and the replay make them.
        const payments = createStripePayments(createStripeClient(API_KEY, p.front.url), {
          error: () => {},
        });
        const [subscription] = (await p.direct.subscriptions.list({ limit: 1 })).data;
        await payments.listSubscriptions(String(subscription!.customer));
        await payments.undeliveredEvents();
        // Start-up's: a price read, and the portal configuration found and set to other prices.
        await payments.retrievePrice('price_sim_pro');
        const own = await payments.ensurePortalConfiguration({
          products: [{ product: 'prod_sim_pro', prices: ['price_sim_pro'] }],
        });
        assert.equal(own.outcome, 'restored');
        const notice: ObjectNotice = {
          id: 'evt_likeness',
          type: 'v1.invoice.paid',
          created: Math.floor(Date.now() / 1000),
          livemode: false,
          kind: 'object_notice',
          related: { type: 'invoice', id: subscription!.latest_invoice as string },
        };
        await payments.completeNotice(notice);

        const checked = new Map<string, number>();
        const wrong: string[] = [];
        for (const request of p.front.requests as SeenRequest[]) {
          const route = ANSWERS.find(
            ([method, path]) => method === request.method && path.test(request.path),
          );
          if (route === undefined || request.answered !== 200 || request.answerText === undefined)
            continue;
          const found = problems(route[2], JSON.parse(request.answerText));
          checked.set(route[2], (checked.get(route[2]) ?? 0) + 1);
          if (found.length > 0)
            wrong.push(`${request.method} ${request.path} (${route[2]}): ${found.join('; ')}`);
        }
        assert.deepEqual(distinct(wrong), []);
        assert.deepEqual(
          [...new Set(ANSWERS.map(([, , definition]) => definition))].filter(
            (d) => !checked.has(d),
          ),
          [],
          'every kind of answer was checked at least once',
        );
      });
    });

    describe('every event the simulator sends', () => {
      let db: Awaited<ReturnType<typeof openPglite>>;
      let simulator: PaymentsSimulator;
      let server: Server;
      const bodies: string[] = [];
      before(async () => {
        server = createServer((request, response) => {
          const chunks: Buffer[] = [];
          request.on('data', (chunk: Buffer) => chunks.push(chunk));
          request.on('end', () => {
            bodies.push(Buffer.concat(chunks).toString('utf8'));
            response.writeHead(200).end('{}');
          });
        });
        server.keepAliveTimeout = 100;
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
        db = await openPglite();
        simulator = await startPaymentsSimulator({
          db,
          host: '127.0.0.1',
          port: 0,
          apiKey: API_KEY,
          webhookUrl: () => url,
          webhookSecret: 'whsec_local_simulator',
          prices: new Map([
            ['pro', 'price_sim_pro'],
            ['team', 'price_sim_team'],
          ]),
        });
      });
      after(async () => {
        await simulator.close();
        await db.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });

      /** A subscriber's whole life, every button that sends events; the bodies delivered meanwhile. */
      async function everyEvent(tag: string): Promise<unknown[]> {
        const start = bodies.length;
        const stripe = createStripeClient(API_KEY, simulator.url);
        const post = (path: string, form = '') =>
          fetch(`${simulator.url}${path}`, {
            method: 'POST',
            redirect: 'manual',
            headers: {
              authorization: `Bearer ${API_KEY}`,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: form,
          }).then((response) => {
            assert.ok(response.status < 400, `${path}: ${response.status}`);
            return response.text();
          });
        const customer = await stripe.customers.create({ email: `${tag}@example.com` });
        const open = () =>
          stripe.checkout.sessions.create({
            mode: 'subscription',
            customer: customer.id,
            line_items: [{ price: 'price_sim_pro', quantity: 1 }],
            success_url: 'https://app.example.test/ok',
            cancel_url: 'https://app.example.test/no',
            subscription_data: { metadata: { user_id: tag } },
          });
        await stripe.checkout.sessions.expire((await open()).id);
        const session = await open();
        await post(`/checkout/${session.id}/pay`);
        const id = (await stripe.checkout.sessions.retrieve(session.id)).subscription as string;
        for (const action of [
          'fail-renewal',
          'renew',
          'renew',
          'cancel-at-period-end',
          'resume-at-period-end',
          'pause',
          'resume',
        ])
          await post(`/_sim/subscriptions/${id}/${action}`);
        await post('/_sim/settings', 'pause_on_payment_failure=true');
        await post(`/_sim/subscriptions/${id}/fail-renewal`);
        await post(`/_sim/subscriptions/${id}/renew`);
        await post('/_sim/settings', 'pause_on_payment_failure=false');
        const portal = await stripe.billingPortal.sessions.create({
          customer: customer.id,
          return_url: 'https://app.example.test/',
        });
        await post(
          `${new URL(portal.url).pathname}/switch`,
          `subscription=${id}&price=price_sim_team`,
        );
        await post(`${new URL(portal.url).pathname}/update-card`, 'card=4444');
        // A seat change as the service's seat sync makes it, its prorations billed by the renewal.
        const item = (await stripe.subscriptions.retrieve(id)).items.data[0]!.id;
        const seats = await post(
          `/v1/subscriptions/${id}`,
          `items[0][id]=${item}&items[0][quantity]=3&proration_behavior=create_prorations`,
        );
        assert.deepEqual(
          problems('SubscriptionObject', JSON.parse(seats)),
          [],
          'a quantity update',
        );
        await post(`/_sim/subscriptions/${id}/renew`);
        await stripe.customers.update(customer.id, { name: 'Likeness' });
        await post(`/_sim/subscriptions/${id}/cancel-now`);
        // A promotion code, automatic tax and two seats: discounts and taxes on every invoice,
        // on a switch's prorations too.
        const offered = await stripe.checkout.sessions.create({
          mode: 'subscription',
          customer: customer.id,
          line_items: [{ price: 'price_sim_pro', quantity: 2 }],
          success_url: 'https://app.example.test/ok',
          discounts: [{ promotion_code: 'promo_sim_save20' }],
          automatic_tax: { enabled: true },
          customer_update: { address: 'auto' },
        });
        await post(`/checkout/${offered.id}/pay`);
        const discounted = (await stripe.checkout.sessions.retrieve(offered.id))
          .subscription as string;
        await post(`/_sim/subscriptions/${discounted}/renew`);
        // A session opened after the renewal: the renewal moved the customer's clock a month on,
        // past the five minutes of the one opened before.
        const renewedPortal = await stripe.billingPortal.sessions.create({ customer: customer.id });
        await post(
          `${new URL(renewedPortal.url).pathname}/switch`,
          `subscription=${discounted}&price=price_sim_team`,
        );
        // A portal configuration like the service's; the downgrade it schedules, applied and
        // released by End period; a schedule made by the API, then canceled with its subscription.
        const configuration = await stripe.billingPortal.configurations.create({
          features: {
            subscription_update: {
              enabled: true,
              default_allowed_updates: ['price'],
              products: [
                { product: 'prod_sim_pro', prices: ['price_sim_pro'] },
                { product: 'prod_sim_team', prices: ['price_sim_team'] },
              ],
              proration_behavior: 'create_prorations',
              schedule_at_period_end: { conditions: [{ type: 'decreasing_item_amount' }] },
            },
            subscription_cancel: { enabled: true, mode: 'at_period_end' },
          },
          metadata: { managed_by: 'likeness' },
        });
        assert.deepEqual(problems('BillingPortalConfigurationObject', configuration), []);
        const configured = await stripe.billingPortal.sessions.create({
          customer: customer.id,
          configuration: configuration.id,
        });
        await post(
          `${new URL(configured.url).pathname}/switch`,
          `subscription=${discounted}&price=price_sim_pro`,
        );
        await post(`/_sim/subscriptions/${discounted}/renew`);
        const schedule = await stripe.subscriptionSchedules.create({
          from_subscription: discounted,
        });
        assert.deepEqual(problems('SubscriptionScheduleObject', schedule), []);
        await stripe.subscriptionSchedules.cancel(schedule.id);
        await allDelivered(stripe); // the last deliveries landed
        return bodies.slice(start).map((body) => JSON.parse(body) as unknown);
      }

      test('snapshot events: each against its type', async () => {
        const events = (await everyEvent('snapshot-events')) as { id: string; type: string }[];
        const types = new Set(events.map((e) => e.type));
        assert.ok(types.size >= 13, [...types].join(', '));
        for (const type of [
          'billing_portal.configuration.created',
          'subscription_schedule.created',
          'subscription_schedule.updated',
          'subscription_schedule.released',
          'subscription_schedule.canceled',
        ])
          assert.ok(types.has(type), `${type} sent`);
        const wrong = events.flatMap((event) => {
          const definition = EVENT_DEFINITIONS.get(event.type);
          if (definition === undefined)
            return [`${event.type}: no such event type at the pinned version`];
          const found = problems(definition, event);
          return found.length > 0 ? [`${event.type} ${event.id}: ${found.join('; ')}`] : [];
        });
        assert.deepEqual(distinct(wrong), []);
        const pendingBilled = events
          .flatMap((event) =>
            event.type === 'invoice.paid' ? [event as Stripe.InvoicePaidEvent] : [],
          )
          .flatMap((event) => event.data.object.lines.data)
          .filter((line) => line.parent?.subscription_item_details?.invoice_item);
        assert.equal(
          pendingBilled.length,
          2,
          "the seat change's prorations, billed by the renewal",
        );
      });

      test('thin events: each a v2.core.event, and as GET /v2/core/events/:id answers it', async () => {
        await fetch(`${simulator.url}/_sim/settings`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${API_KEY}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'webhook_payload=thin',
        });
        const events = (await everyEvent('thin-events')) as { id: string; type: string }[];
        assert.ok(events.length >= 13);
        const wrong = events.flatMap((event) => {
          const found = problems('ThinEventObject', event);
          return found.length > 0 ? [`${event.type} ${event.id}: ${found.join('; ')}`] : [];
        });
        const fetched = await (
          await fetch(`${simulator.url}/v2/core/events/${events[0]!.id}`, {
            headers: { authorization: `Bearer ${API_KEY}` },
          })
        ).json();
        wrong.push(...problems('ThinEventObject', fetched));
        assert.deepEqual(distinct(wrong), []);
      });
    });
  },
);
