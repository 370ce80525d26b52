// Subscriptions that exist at the provider (the simulator's sim_* tables) for users the service
// has, written with the simulator's own builders and store, and a provider-side backlog: events
// recorded as never delivered (the way the simulator holds an event whose delivery has not
// succeeded), with the `created` times an outage leaves behind. S2b and the replay start from it.
import type pg from 'pg';
import type Stripe from 'stripe';
import { openPostgres } from '../../src/adapters/database/postgres.ts';
import type { SqlClient } from '../../src/adapters/database/sql-client.ts';
import {
  AUTOMATIC,
  buildCustomer,
  buildEvent,
  buildInvoice,
  buildSubscription,
  Documents,
  takeInvoiceNumber,
  type SimEvent,
} from '@billing/payments-simulator/seed';
import { PRICES } from './stack.ts';

export interface ProviderSubscription {
  userId: string;
  customer: Stripe.Customer;
  subscription: Stripe.Subscription;
}

/** Runs `work` on the simulator's tables in one transaction. */
async function inSimulator<T>(
  databaseUrl: string,
  work: (tx: SqlClient) => Promise<T>,
): Promise<T> {
  const db = openPostgres(databaseUrl, { poolSize: 1 });
  try {
    return await db.transaction(work);
  } finally {
    await db.close();
  }
}

/**
 * `count` users (idp ids `<tag>0`, `<tag>1`, ...) in the service's database, each the customer of
 * an active monthly subscription to the first price at the provider; the service does not know
 * the subscriptions.
 */
export async function seedProviderSubscriptions(
  databaseUrl: string,
  pool: pg.Pool,
  tag: string,
  count: number,
): Promise<ProviderSubscription[]> {
  const { rows } = await pool.query<{ id: string; i: number }>(
    `INSERT INTO users (idp_id, email) SELECT $1 || i, $1 || i || '@bench.example' FROM generate_series(0, $2 - 1) AS i
     RETURNING id, substr(idp_id, length($1) + 1)::int AS i`,
    [tag, count],
  );
  const userIds = rows.sort((a, b) => a.i - b.i).map((row) => row.id);
  const seeded = await inSimulator(databaseUrl, async (tx) => {
    const docs = new Documents(tx);
    const price = (await docs.require<Stripe.Price>('price', PRICES[0])).data;
    const start = Math.floor(Date.now() / 1000) - 10 * 86_400;
    const made: ProviderSubscription[] = [];
    for (const [i, userId] of userIds.entries()) {
      const customer = buildCustomer({
        email: `${tag}${i}@bench.example`,
        metadata: { user_id: userId },
      });
      const subscription = buildSubscription({
        customer: customer.id,
        price,
        quantity: 1,
        metadata: { user_id: userId },
        description: null,
        start,
        periodEnd: start + 30 * 86_400,
      });
      await docs.save('customer', customer);
      await docs.save('subscription', subscription);
      made.push({ userId, customer, subscription });
    }
    return made;
  });
  await pool.query(
    'UPDATE users u SET payments_customer_id = c.customer FROM unnest($1::uuid[], $2::text[]) AS c(id, customer) WHERE u.id = c.id',
    [seeded.map((s) => s.userId), seeded.map((s) => s.customer.id)],
  );
  return seeded;
}

/** A paid renewal invoice of each subscription, stored at the provider (its event names it); each customer moves past its number. */
export async function paidInvoices(
  databaseUrl: string,
  seeded: readonly ProviderSubscription[],
  at: number,
): Promise<Stripe.Invoice[]> {
  return inSimulator(databaseUrl, async (tx) => {
    const docs = new Documents(tx);
    const invoices: Stripe.Invoice[] = [];
    for (const entry of seeded) {
      const { number, customer } = takeInvoiceNumber(entry.customer);
      const invoice = buildInvoice({
        subscription: entry.subscription,
        customer,
        reason: 'subscription_cycle',
        paid: true,
        at,
        number,
      });
      await docs.save('customer', customer);
      await docs.save('invoice', invoice);
      entry.customer = customer;
      invoices.push(invoice);
    }
    return invoices;
  });
}

export const providerEvent = (
  type: string,
  object: object,
  created: number,
  previous?: Record<string, unknown>,
): SimEvent => buildEvent({ type, object, trigger: AUTOMATIC, previous }, created);

/** Records the events at the provider as never delivered (no attempt due), in the given order. */
export async function recordUndelivered(
  databaseUrl: string,
  events: readonly SimEvent[],
): Promise<void> {
  await inSimulator(databaseUrl, async (tx) => {
    for (const event of events)
      await tx.query('INSERT INTO sim_events (id, type, created, data) VALUES ($1, $2, $3, $4)', [
        event.id,
        event.type,
        event.created,
        JSON.stringify(event),
      ]);
  });
}

/**
 * How many of the subscriptions the service holds in the state they have at the provider (active,
 * the first price, not set to cancel), the state seedProviderSubscriptions gave them.
 */
export async function holdingProviderState(
  pool: pg.Pool,
  seeded: readonly ProviderSubscription[],
): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM subscriptions WHERE id = ANY($1::text[]) AND status = 'active' AND price_id = $2 AND NOT cancel_at_period_end`,
    [seeded.map((s) => s.subscription.id), PRICES[0]],
  );
  return rows[0]!.n;
}
