// The reconciliation: `npm run cli -- reconcile` (one process, as an operator runs it) over N
// subscriptions at the provider (10,000; smoke: 200) for users the service has, twice: first when
// the service knows none of them (an adoption: every one is stored), then after a tenth of them
// were canceled at the provider without an event (drift: those are repaired, the rest unchanged).
// Measured: wall time and the provider calls of each run, expected to be list calls only, one per
// 100 subscriptions; checked: the summary's counts and that every subscription ends in the
// provider's state.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Stripe from 'stripe';
import { Documents } from '@billing/payments-simulator/seed';
import { openPostgres } from '../../src/adapters/database/postgres.ts';
import { startNode } from './processes.ts';
import { resetCalls } from './provider-calls.ts';
import { seedProviderSubscriptions, type ProviderSubscription } from './provider-seed.ts';
import { watched, type BenchContext, type Measurement } from './scenarios.ts';
import { serviceEnv, type Stack } from './stack.ts';

export const SUBSCRIPTION_LIST = 'GET /v1/subscriptions';

/** Cancels these subscriptions at the provider, writing the simulator's tables: no event at all. */
async function cancelSilently(databaseUrl: string, drifted: ProviderSubscription[]): Promise<void> {
  const db = openPostgres(databaseUrl, { poolSize: 1 });
  try {
    await db.transaction(async (tx) => {
      const docs = new Documents(tx);
      const at = Math.floor(Date.now() / 1000);
      for (const { subscription } of drifted)
        await docs.save('subscription', {
          ...subscription,
          status: 'canceled',
          canceled_at: at,
          ended_at: at,
        } satisfies Stripe.Subscription);
    });
  } finally {
    await db.close();
  }
}

async function runOnce(ctx: BenchContext, stack: Stack, label: string) {
  const logFile = join(stack.logsDir, `reconcile-${label}.log`);
  await resetCalls(ctx.simulatorUrl);
  const command = startNode({
    name: `reconcile-${label}`,
    args: ['--import', 'tsx', 'src/cli/index.ts', 'reconcile'],
    env: serviceEnv(stack),
    logFile,
  });
  const started = performance.now();
  const round = await watched(
    ctx,
    [command.child.pid!],
    async () => {
      await command.exited;
      const wallMs = performance.now() - started;
      const seen = Number(/reconciled (\d+) subscription/.exec(readFileSync(logFile, 'utf8'))?.[1]);
      return {
        requests: seen,
        durationS: wallMs / 1000,
        rps: seen / (wallMs / 1000),
        p50: NaN,
        p99: NaN,
        non2xx: 0,
        wallMs,
      };
    },
    'server',
  );
  const summary =
    /reconciled (\d+) subscription\(s\): (\d+) repaired, (\d+) unchanged, (\d+) not linked/.exec(
      readFileSync(logFile, 'utf8'),
    );
  const [seen, repaired, unchanged, unlinked] = (summary?.slice(1) ?? []).map(Number);
  return { round, exitCode: command.child.exitCode, logFile, seen, repaired, unchanged, unlinked };
}

export async function reconcileSubscriptions(
  ctx: BenchContext,
  stack: Stack,
): Promise<{ adoption: Measurement; drift: Measurement }> {
  const count = ctx.settings.reconcileSubscriptions;
  const population = await seedProviderSubscriptions(ctx.databaseUrl, ctx.pool, 'rc-', count);
  const drifted = population.filter((_, i) => i % 10 === 0);
  const verdict = async (
    run: Awaited<ReturnType<typeof runOnce>>,
    expected: { repaired: number; canceled: number },
  ): Promise<Measurement> => {
    const problems: string[] = [];
    if (run.exitCode !== 0) problems.push(`reconcile exited ${run.exitCode} (see ${run.logFile})`);
    const lists = run.round.calls[SUBSCRIPTION_LIST] ?? 0;
    const others = Object.entries(run.round.calls).filter(([call]) => call !== SUBSCRIPTION_LIST);
    if (others.length > 0)
      problems.push(
        `calls other than list calls: ${others.map(([c, n]) => `${c} ${n}`).join(', ')}`,
      );
    // Pages of 100; a tie of the same second costs one more list of that customer.
    if (lists > Math.ceil((run.seen ?? 0) / 100) + 5)
      problems.push(`${lists} list calls for ${run.seen} subscriptions`);
    if ((run.repaired ?? -1) < expected.repaired)
      problems.push(`${run.repaired} repaired, ${expected.repaired} expected`);
    const { rows } = await ctx.pool.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM subscriptions WHERE id = ANY($1::text[]) GROUP BY status`,
      [population.map((p) => p.subscription.id)],
    );
    const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    if ((by.canceled ?? 0) !== expected.canceled || (by.active ?? 0) !== count - expected.canceled)
      problems.push(`stored afterwards: ${JSON.stringify(by)}`);
    return {
      ...run.round,
      problems,
      notes: [
        `${run.seen} seen, ${run.repaired} repaired, ${run.unchanged} unchanged, ${run.unlinked} not linked; ${lists} list calls (${((1000 * lists) / (run.seen || 1)).toFixed(1)} per 1,000 subscriptions)`,
      ],
      subscriptions: run.seen,
    };
  };
  const adoption = await verdict(await runOnce(ctx, stack, 'adoption'), {
    repaired: count,
    canceled: 0,
  });
  await cancelSilently(ctx.databaseUrl, drifted);
  const drift = await verdict(await runOnce(ctx, stack, 'drift'), {
    repaired: drifted.length,
    canceled: drifted.length,
  });
  return { adoption, drift };
}
