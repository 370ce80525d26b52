// The payment simulator run on its own (in memory) and delivering its webhooks, signed, to the
// service listening on a port of its own: snapshot events, or thin events signed with a secret of
// their own as an event destination's are. The service reaches the simulator through a faulty
// front (faulty-front.ts), which records every request with its timing; the simulator's own
// GET /_sim/calls counts what it served.
import assert from 'node:assert/strict';
import type Stripe from 'stripe';
import { openPglite } from '../../src/adapters/database/pglite.ts';
import { createStripeClient } from '../../src/adapters/payments/stripe-client.ts';
import {
  startPaymentsSimulator,
  type PaymentsSimulator,
  type WebhookPayload,
} from '@billing/payments-simulator';
import { bearer, buildTestApp, type TestApp } from './app.ts';
import { startFaultyFront, type FaultyFront } from './faulty-front.ts';

export const API_KEY = 'sk_test_simulator';
export const SNAPSHOT_SECRET = 'whsec_local_simulator';
export const THIN_SECRET = 'whsec_thin_destination';

export interface DeliveringProvider {
  t: TestApp;
  simulator: PaymentsSimulator;
  front: FaultyFront;
  /** The SDK on the simulator itself: not among the front's requests (but counted by /_sim/calls). */
  direct: Stripe;
  /** POST /_sim/<path> with the API key; a form body when given. */
  sim(path: string, form?: string): Promise<Response>;
  /** GET /_sim/calls: how many times each API route was served. */
  calls(): Promise<Record<string, number>>;
  /** Runs `work` while the simulator keeps its webhooks (they wait); then they go out as usual. */
  holdDeliveries(work: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function startDeliveringProvider(
  payload: WebhookPayload,
  env: Record<string, string> = {},
): Promise<DeliveringProvider> {
  const db = await openPglite();
  let webhookUrl: string | null = null;
  const simulator = await startPaymentsSimulator({
    db,
    host: '127.0.0.1',
    port: 0,
    apiKey: API_KEY,
    webhookUrl: () => webhookUrl,
    webhookSecret: SNAPSHOT_SECRET,
    thinWebhookSecret: THIN_SECRET,
    webhookPayload: payload,
    prices: new Map([
      ['pro', 'price_sim_pro'],
      ['team', 'price_sim_team'],
    ]),
    retryDelaysMs: [200, 500],
  });
  const front = await startFaultyFront(simulator.url);
  const t = await buildTestApp({
    PAYMENTS_API_KEY: API_KEY,
    PAYMENTS_API_BASE: front.url,
    // Both destinations' secrets, as a team moving from one payload style to the other has them.
    PAYMENTS_WEBHOOK_SECRET: `${SNAPSHOT_SECRET},${THIN_SECRET}`,
    BILLING_PRICES: 'pro=price_sim_pro,team=price_sim_team',
    ...env,
  });
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const serviceWebhooks = `${base}/api/v1/webhooks/payments`;
  webhookUrl = serviceWebhooks;
  const auth = { authorization: `Bearer ${API_KEY}` };
  return {
    t,
    simulator,
    front,
    direct: createStripeClient(API_KEY, simulator.url),
    sim: (path, form) =>
      fetch(`${simulator.url}/_sim/${path}`, {
        method: 'POST',
        headers:
          form === undefined
            ? auth
            : { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
    calls: async () =>
      (
        (await (await fetch(`${simulator.url}/_sim/calls`, { headers: auth })).json()) as {
          calls: Record<string, number>;
        }
      ).calls,
    async holdDeliveries(work) {
      webhookUrl = null;
      try {
        await work();
      } finally {
        webhookUrl = serviceWebhooks;
      }
    },
    async close() {
      webhookUrl = null;
      await t.close();
      await front.close();
      await simulator.close();
      await db.close();
    },
  };
}

/** Checks out as `sub` and pays on the simulator's page, which waits for the webhooks it sends; the subscription's id. */
export async function subscribe(p: DeliveringProvider, sub: string): Promise<string> {
  const checkout = await p.t.app.inject({
    method: 'POST',
    url: '/api/v1/billing/checkout',
    headers: bearer(await p.t.token(sub)),
    payload: {},
  });
  assert.equal(checkout.statusCode, 200, checkout.body);
  const paid = await fetch(`${checkout.json().url}/pay`, { method: 'POST', redirect: 'manual' });
  assert.equal(paid.status, 303);
  const sessionId = new URL(checkout.json().url).pathname.split('/').at(-1)!;
  return (await p.direct.checkout.sessions.retrieve(sessionId)).subscription as string;
}

/** A lifecycle control; answers once its events were delivered. Returns their types. */
export async function control(
  p: DeliveringProvider,
  id: string,
  action: string,
): Promise<string[]> {
  const response = await p.sim(`subscriptions/${id}/${action}`);
  assert.equal(response.status, 200, await response.clone().text());
  const { events } = (await response.json()) as { events: { type: string; delivered: boolean }[] };
  assert.ok(
    events.every((e) => e.delivered),
    `${action}: ${JSON.stringify(events)}`,
  );
  return events.map((e) => e.type);
}
