// The replay: `npm run payments:replay` (the replay-events command) over a backlog of undelivered
// events at the provider, for subscriptions the service does not know yet, five per subscription
// in created order, a minute apart, a day before: customer.subscription.created, invoice.paid,
// ...updated (set to cancel at period end), ...updated (not any more), invoice.paid (a renewal).
// Measured: wall time, the provider calls (expected at most one subscription read per
// subscription, plus the events.list pages), and that every subscription ends in the provider's
// state. The command runs as `node --import tsx src/cli/index.ts replay-events`, the script's
// `tsx src/cli/index.ts replay-events` in one process, so its CPU and memory are its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withCancelAtPeriodEnd, type SimEvent } from '@billing/payments-simulator/seed';
import { startNode } from './processes.ts';
import { EVENT_LIST, resetCalls, SUBSCRIPTION_READ } from './provider-calls.ts';
import {
  holdingProviderState,
  paidInvoices,
  providerEvent,
  recordUndelivered,
  seedProviderSubscriptions,
} from './provider-seed.ts';
import { watched, type BenchContext, type Measurement } from './scenarios.ts';
import { serviceEnv, type Stack } from './stack.ts';

const EVENTS_PER_SUBSCRIPTION = 5;

async function undeliveredBacklog(ctx: BenchContext) {
  const count = Math.ceil(ctx.settings.replayEvents / EVENTS_PER_SUBSCRIPTION);
  const population = await seedProviderSubscriptions(ctx.databaseUrl, ctx.pool, 'rp-', count);
  const at = (step: number) => Math.floor(Date.now() / 1000) - 86_400 + 60 * step;
  const steps: SimEvent[][] = [
    population.map(({ subscription }) =>
      providerEvent('customer.subscription.created', subscription, at(0)),
    ),
    (await paidInvoices(ctx.databaseUrl, population, at(1))).map((invoice) =>
      providerEvent('invoice.paid', invoice, at(1)),
    ),
    population.map(({ subscription }) =>
      providerEvent(
        'customer.subscription.updated',
        withCancelAtPeriodEnd(subscription, true),
        at(2),
        { cancel_at_period_end: false },
      ),
    ),
    population.map(({ subscription }) =>
      providerEvent('customer.subscription.updated', subscription, at(3), {
        cancel_at_period_end: true,
      }),
    ),
    (await paidInvoices(ctx.databaseUrl, population, at(4))).map((invoice) =>
      providerEvent('invoice.paid', invoice, at(4)),
    ),
  ];
  const events = steps.flat();
  await recordUndelivered(ctx.databaseUrl, events);
  return { population, events };
}

export async function replayUndelivered(ctx: BenchContext, stack: Stack): Promise<Measurement> {
  const { population, events } = await undeliveredBacklog(ctx);
  const logFile = join(stack.logsDir, 'replay.log');
  // Reset before the start too: watched() resets again once the command is spawned, long before
  // it has composed the service and made its first call.
  await resetCalls(ctx.simulatorUrl);
  const replay = startNode({
    name: 'replay',
    args: ['--import', 'tsx', 'src/cli/index.ts', 'replay-events'],
    env: serviceEnv(stack),
    logFile,
  });
  const started = performance.now();
  const round = await watched(
    ctx,
    [replay.child.pid!],
    async () => {
      await replay.exited;
      const wallMs = performance.now() - started;
      const total = Number(/replayed (\d+) event/.exec(readFileSync(logFile, 'utf8'))?.[1] ?? 0);
      return {
        requests: total,
        durationS: wallMs / 1000,
        rps: total / (wallMs / 1000),
        p50: NaN,
        p99: NaN,
        non2xx: events.length - total,
        wallMs,
      };
    },
    'server',
  );
  const problems: string[] = [];
  if (replay.child.exitCode !== 0)
    problems.push(`replay-events exited ${replay.child.exitCode} (see ${logFile})`);
  const { rows } = await ctx.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1::text[])',
    [events.map((e) => e.id)],
  );
  if (rows[0]!.n !== events.length)
    problems.push(`${rows[0]!.n} of ${events.length} events recorded`);
  const kept = await holdingProviderState(ctx.pool, population);
  if (kept !== population.length)
    problems.push(
      `${population.length - kept} of ${population.length} subscriptions not in the provider's state`,
    );
  const reads = round.calls[SUBSCRIPTION_READ] ?? 0;
  const lists = round.calls[EVENT_LIST] ?? 0;
  return {
    ...round,
    problems,
    notes: [
      `${round.requests} of ${events.length} events replayed, ${reads} subscription reads for ${population.length} subscriptions, ${lists} list calls`,
    ],
    subscriptions: population.length,
  };
}
