// S2b, a backlog: `customer.subscription.updated` events delivered late (created 1 hour to 3 days
// before delivery, as Stripe's retries and `payments:replay` deliver them after an outage, in
// created order: one second apart, round-robin over the subscriptions) for subscriptions whose
// state the server already holds from a provider read made after those events were created. Every
// late event carries a state the subscription no longer has (set to cancel at
// period end): none may change the stored state, and once events are ordered against the
// provider's clock none needs a provider read.
//
// Set-up, before the window, each server with subscriptions of its own: the service receives one
// `invoice.paid` per subscription (created 3 days and 1 hour ago), which makes it re-read the
// subscription from the simulator now; the baseline, which reads nothing, gets the same state by
// its guarded UPDATE from a `customer.subscription.updated` created now.
import { previousAttributes, withCancelAtPeriodEnd } from '@billing/payments-simulator/seed';
import {
  holdingProviderState,
  paidInvoices,
  providerEvent,
  seedProviderSubscriptions,
  type ProviderSubscription,
} from './provider-seed.ts';
import { SUBSCRIPTION_READ } from './provider-calls.ts';
import {
  answersOf,
  signedEvent,
  steady,
  webhookTraffic,
  type BenchContext,
  type Phase,
  type Scenario,
} from './scenarios.ts';
import type { Server } from './stack.ts';

const HOUR = 3_600;
const DAY = 24 * HOUR;
const PROCESSED = '{"status":"processed"}';

/** Sends each body once, signed, 16 at a time; every one must be answered 200. */
async function deliverAll(server: Server, secret: string, bodies: string[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 16) {
    await Promise.all(
      bodies.slice(i, i + 16).map(async (body) => {
        const { header } = signedEvent(secret, body);
        const response = await fetch(`${server.url}/api/v1/webhooks/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [header[0]]: header[1] },
          body,
        });
        if (!response.ok)
          throw new Error(
            `S2b set-up on ${server.name}: ${response.status} ${await response.text()}`,
          );
      }),
    );
  }
}

/** The server holds each subscription's state as read from the provider at `readAt`. */
async function holdProviderState(
  ctx: BenchContext,
  server: Server,
  population: ProviderSubscription[],
  readAt: number,
): Promise<void> {
  const secret = ctx.events.webhookSecret;
  if (server.name !== 'baseline') {
    const invoices = await paidInvoices(ctx.databaseUrl, population, readAt - 3 * DAY - HOUR);
    return deliverAll(
      server,
      secret,
      invoices.map((invoice) =>
        JSON.stringify(providerEvent('invoice.paid', invoice, invoice.created)),
      ),
    );
  }
  await ctx.pool.query(
    `INSERT INTO subscriptions (id, user_id, customer_id, status, price_id, cancel_at_period_end, current_period_end, created_at, as_of)
     SELECT s.id, s.user_id, s.customer, 'incomplete', null, false, null, now(), 0 FROM unnest($1::text[], $2::uuid[], $3::text[]) AS s(id, user_id, customer)`,
    [
      population.map((p) => p.subscription.id),
      population.map((p) => p.userId),
      population.map((p) => p.customer.id),
    ],
  );
  await deliverAll(
    server,
    secret,
    population.map((p) =>
      JSON.stringify(providerEvent('customer.subscription.updated', p.subscription, readAt)),
    ),
  );
}

export function s2bBacklog(ctx: BenchContext): Scenario {
  /** Per server: its subscriptions, the time of their read, the events made so far and the first of the rounds'. */
  const populations = new Map<
    string,
    { subscriptions: ProviderSubscription[]; readAt: number; sent: number; firstMeasured?: number }
  >();
  const tagOf = (server: Server) => `bl-${server.name.replace(/\W+/g, '-')}-`;
  const traffic = (server: Server, phase: Phase) => {
    const population = populations.get(server.name)!;
    if (phase === 'round') population.firstMeasured ??= population.sent;
    // One late event per subscription, as JSON to fill in: its id and `created` vary per delivery.
    const templates = population.subscriptions.map(({ subscription }) => {
      const stale = withCancelAtPeriodEnd(subscription, true);
      const event = providerEvent(
        'customer.subscription.updated',
        stale,
        0,
        previousAttributes(subscription, stale),
      );
      return { text: JSON.stringify(event), id: event.id };
    });
    const lateFrom = population.readAt - 3 * DAY;
    const lastLate = population.readAt - HOUR;
    return webhookTraffic(() => {
      const n = population.sent++;
      const template = templates[n % templates.length]!;
      const created = Math.min(lateFrom + n, lastLate);
      return signedEvent(
        ctx.events.webhookSecret,
        template.text
          .replace(template.id, `evt_${tagOf(server)}${n}`)
          .replace('"created":0,', `"created":${created},`),
      );
    }, PROCESSED);
  };
  return steady(ctx, ctx.settings.connections, traffic, {
    async prepare(server) {
      const subscriptions = await seedProviderSubscriptions(
        ctx.databaseUrl,
        ctx.pool,
        tagOf(server),
        ctx.settings.backlogSubscriptions,
      );
      const readAt = Math.floor(Date.now() / 1000);
      await holdProviderState(ctx, server, subscriptions, readAt);
      populations.set(server.name, { subscriptions, readAt, sent: 0 });
    },
    async verify(server, rounds) {
      const { subscriptions, firstMeasured = 0 } = populations.get(server.name)!;
      const { expected: acknowledged, other } = answersOf(rounds);
      const kept = await holdingProviderState(ctx.pool, subscriptions);
      // The rounds' events only: the warm-up's are not checked against the rounds' answers.
      const { rows } = await ctx.pool.query<{ recorded: number }>(
        `SELECT count(*)::int AS recorded FROM webhook_events WHERE starts_with(id, $1) AND substr(id, length($1) + 1)::int >= $2`,
        [`evt_${tagOf(server)}`, firstMeasured],
      );
      const { recorded } = rows[0]!;
      const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
      const distinct = Math.min(subscriptions.length, requests);
      const reads = rounds.reduce((sum, r) => sum + (r.calls[SUBSCRIPTION_READ] ?? 0), 0);
      const problems: string[] = [];
      if (other > 0) problems.push(`${other} answers other than processed`);
      if (acknowledged > recorded)
        problems.push(`${acknowledged - recorded} acknowledged events not recorded (lost)`);
      if (kept !== subscriptions.length)
        problems.push(
          `${subscriptions.length - kept} of ${subscriptions.length} subscriptions changed by a late event`,
        );
      return {
        problems,
        notes: [
          `${acknowledged} late events acknowledged, ${subscriptions.length - kept} subscriptions changed, ${reads} subscription reads for ${distinct} subscriptions`,
        ],
        subscriptions: distinct,
      };
    },
  });
}
