// Test harness for the payments simulator: a fresh database (PGlite in memory, or a new database
// on the PostgreSQL server at TEST_POSTGRES_URL when TEST_DATABASE=postgres), the simulator on a
// free port, the official stripe SDK pointed at it, and a small node:http webhook receiver that
// verifies every delivery with the SDK's own constructEvent.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import Stripe from 'stripe';
import {
  openDatabase,
  startPaymentsSimulator,
  type OwnDatabase,
  type PaymentsSimulator,
  type PaymentsSimulatorOptions,
  type SimulatorDatabase,
} from '../src/index.ts';

export const onPostgres = process.env.TEST_DATABASE === 'postgres';
export const databaseLabel = onPostgres ? 'PostgreSQL' : 'PGlite';
/**
 * For a file whose subject is what the simulator answers, not how it keeps it: npm test runs it in
 * one half only (the service's scripts/test.mjs says which, in TEST_ONCE_SKIP). Files about its
 * store (restarts, concurrent requests, the command) run on both databases; the browser files on
 * PGlite only. Run alone, it always runs.
 */
export const onceInTheSuite = { skip: process.env.TEST_ONCE_SKIP || false };

export const API_KEY = 'sk_test_simulator';
export const SECRET = 'whsec_local_simulator';
export const PRICES = new Map([
  ['pro', 'price_sim_pro'],
  ['team', 'price_sim_team'],
]);
/** The same plans, each by the month and by the year (as BILLING_PRICES names a yearly price). */
export const PRICES_BY_MONTH_AND_YEAR = new Map([
  ['pro', 'price_sim_pro'],
  ['pro@year', 'price_sim_pro_year'],
  ['team', 'price_sim_team'],
  ['team@year', 'price_sim_team_year'],
]);

export interface TestDb {
  db: OwnDatabase;
  close(): Promise<void>;
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `memory://`, or the URL of a new database on the test server; drop() removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!onPostgres) return { url: 'memory://', drop: async () => {} };
  const name = `test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_POSTGRES_URL!);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function openTestDb(): Promise<TestDb> {
  const database = await createTestDatabase();
  const db = await openDatabase(database.url);
  return {
    db,
    async close() {
      await db.close();
      await database.drop();
    },
  };
}

export function startSimulator(
  db: SimulatorDatabase,
  options: Partial<PaymentsSimulatorOptions> = {},
): Promise<PaymentsSimulator> {
  return startPaymentsSimulator({
    db,
    host: '127.0.0.1',
    port: 0,
    apiKey: API_KEY,
    webhookUrl: () => null,
    webhookSecret: SECRET,
    prices: PRICES,
    retryDelaysMs: [50, 100, 200],
    ...options,
  });
}

/** The official SDK pointed at a simulator (one in this process, or one run as a command). */
export function sdk(simulator: Pick<PaymentsSimulator, 'url'>, key = API_KEY): Stripe {
  const url = new URL(simulator.url);
  return new Stripe(key, {
    host: url.hostname,
    port: url.port,
    protocol: 'http',
    maxNetworkRetries: 0,
  });
}

/** A customer and an open subscription checkout for it, made through the SDK as the service makes them. */
export async function openCheckout(stripe: Stripe, userId = 'user-1', price = 'price_sim_pro') {
  const customer = await stripe.customers.create({
    email: `${userId}@example.com`,
    metadata: { user_id: userId },
  });
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    client_reference_id: userId,
    line_items: [{ price, quantity: 1 }],
    success_url: 'https://app.example.test/billing/success?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'https://app.example.test/billing/cancel',
    metadata: { user_id: userId },
    subscription_data: { metadata: { user_id: userId } },
  });
  return { customer, session };
}

/** Submits the hosted page's Pay form, as a browser does. */
export const pay = (simulator: Pick<PaymentsSimulator, 'url'>, sessionId: string, form = '') =>
  fetch(`${simulator.url}/checkout/${sessionId}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });

/** POST /_sim/subscriptions/:id/:action with the API key. */
export async function control(
  simulator: PaymentsSimulator,
  subscriptionId: string,
  action: string,
) {
  const response = await fetch(`${simulator.url}/_sim/subscriptions/${subscriptionId}/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      subscription: Stripe.Subscription;
      invoice: Stripe.Invoice | null;
      events: { id: string; type: string; delivered: boolean }[];
      error?: { message: string };
    },
  };
}

export interface Receiver {
  url: string;
  /** Verified events in the order they arrived, duplicates included. */
  events: Stripe.Event[];
  /** Every request, verified or not. */
  hits: number;
  rejected: string[];
  /** Status to answer for an event; 200 unless replaced. */
  answer: (event: Stripe.Event, attempt: number) => number;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(secret = SECRET): Promise<Receiver> {
  const verifier = new Stripe(API_KEY);
  const attempts = new Map<string, number>();
  const receiver: Receiver = {
    url: '',
    events: [],
    hits: 0,
    rejected: [],
    answer: () => 200,
    async waitFor(count, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      while (receiver.events.length < count) {
        if (Date.now() > until)
          throw new Error(
            `expected ${count} events, got ${receiver.events.length}: ${receiver.events.map((e) => e.type).join(', ')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.hits += 1;
      const raw = Buffer.concat(chunks);
      let event: Stripe.Event;
      try {
        event = verifier.webhooks.constructEvent(
          raw,
          request.headers['stripe-signature'] ?? '',
          secret,
        );
      } catch (error) {
        receiver.rejected.push(String(error));
        response.writeHead(400).end('bad signature');
        return;
      }
      const attempt = (attempts.get(event.id) ?? 0) + 1;
      attempts.set(event.id, attempt);
      const status = receiver.answer(event, attempt);
      if (status >= 200 && status < 300) receiver.events.push(event);
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end('{"status":"processed"}');
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/payments`;
  return receiver;
}

/** A simulator on a fresh database, delivering to a receiver, with an SDK client: most suites' setup. */
export interface SimulatorStack {
  database: TestDb;
  receiver: Receiver;
  simulator: PaymentsSimulator;
  stripe: Stripe;
  close(): Promise<void>;
}

export async function startStack(
  options: Partial<PaymentsSimulatorOptions> = {},
): Promise<SimulatorStack> {
  const database = await openTestDb();
  const receiver = await startReceiver();
  const simulator = await startSimulator(database.db, {
    webhookUrl: () => receiver.url,
    ...options,
  });
  return {
    database,
    receiver,
    simulator,
    stripe: sdk(simulator),
    async close() {
      await simulator.close();
      await receiver.close();
      await database.close();
    },
  };
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** The notice the page at `location` shows (its words travel by id, never in the URL), as text. */
export async function noticeAt(location: string, base: string): Promise<string> {
  const page = await (await fetch(new URL(location, base))).text();
  return (/<div class="notice">([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '').replace(
    /&(amp|lt|gt|quot|#39);/g,
    (entity) => ENTITIES[entity]!,
  );
}
