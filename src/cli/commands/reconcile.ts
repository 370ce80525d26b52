// reconcile: brings every stored subscription back to the payment provider's state, listing the
// provider's subscriptions 100 a page (no call per subscription). One summary line on stdout;
// with --dry-run, first a line for each subscription it would change, and nothing is written.
// One reconciliation at a time across the service's instances and operators.
import type { OperatorComposition } from '../../composition.ts';
import type { Change } from '../../domain/billing/provider-listing.ts';
import type { ReconcileResult } from '../../domain/billing/reconcile.ts';
import type { ProviderSubscription, SubscriptionState } from '../../domain/model/subscriptions.ts';
import { cliConfig, type Command } from '../command.ts';

const terms = (s: ProviderSubscription | SubscriptionState) =>
  `${s.status}${s.cancelAtPeriodEnd ? ' (cancels at period end)' : ''} ${s.priceId ?? 'no price'}`;

function describeChange(change: Change, dryRun: boolean): string {
  const { subscription: s, before, verdict } = change;
  const which = `${s.id} (customer ${s.customerId})`;
  if (verdict === 'unlinked')
    return `not linked: ${which}: no user has this customer, and its metadata names none (link it: link-customer)`;
  const what = before === null ? `new, ${terms(s)}` : `${terms(before)} -> ${terms(s)}`;
  return `${dryRun ? 'would repair' : 'repaired'} ${which}: ${what}`;
}

export const reconcileCommand: Command = {
  name: 'reconcile',
  usage: '[--dry-run]',
  summary: "bring every stored subscription back to the payment provider's state",
  help: [
    'Lists every subscription at the payment provider (any status, 100 a page) and stores each one the',
    'stored state disagrees with, as a webhook would: a state stored from a newer event is kept, and an',
    'older event delivered afterwards cannot undo the repair. Each subscription goes to the user its',
    'customer is linked to, else the user its metadata.user_id names; the others are reported as not',
    'linked (see link-customer). Waits when the provider throttles. Safe while the service runs; one',
    'reconciliation at a time (a scheduled one included). Exit 0 when it ran to the end.',
    '',
    '  --dry-run   say what it would change, change nothing',
  ].join('\n'),
  options: { 'dry-run': { type: 'boolean' } },
  positionals: [],
  async run({ values }, io) {
    const dryRun = values['dry-run'] === true;
    const config = cliConfig();
    const [{ composeOperator }, { reconcile }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/billing/reconcile.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const { store, logger, policy } = composition;
      const payments = await composition.payments();
      const work = (signal?: AbortSignal) =>
        reconcile(
          { store, payments, log: logger, policy },
          {
            dryRun,
            signal,
            onPage: (page, soFar) =>
              io.progress(`page ${page}: ${soFar.seen} subscription(s) so far`),
            onThrottled: (seconds) =>
              io.progress(`the payment provider is throttling us: waiting ${seconds} s as it asks`),
          },
        );
      const result = dryRun ? await work() : await asTheOnlyRun(composition, work);
      for (const change of result.changes)
        (dryRun ? io.out : io.progress)(describeChange(change, dryRun));
      io.out(summary(result, dryRun));
    } finally {
      await composition.close();
    }
  },
};

/** Runs `work` under the reconciliation's lease, as a scheduled run would; refused while one runs. */
async function asTheOnlyRun(
  { leases, holder }: Pick<OperatorComposition, 'leases' | 'holder'>,
  work: (signal: AbortSignal) => Promise<ReconcileResult>,
): Promise<ReconcileResult> {
  const { runExclusively } = await import('../../domain/schedule/exclusive-run.ts');
  const outcome = await runExclusively({
    leases,
    job: 'reconcile',
    holder,
    dueAfterMs: 0,
    work,
    report: ({ seen, repaired, unchanged, unlinked }) => ({ seen, repaired, unchanged, unlinked }),
  });
  if (outcome.ran) return outcome.value;
  const running = await leases.holder('reconcile');
  const who = running ? ` (${running.holder}, since ${running.since.toISOString()})` : '';
  throw new Error(`a reconciliation is running already${who}: run this again when it has ended`);
}

function summary(result: ReconcileResult, dryRun: boolean): string {
  const { seen, repaired, unchanged, unlinked } = result;
  return dryRun
    ? `dry run, nothing changed: ${seen} subscription(s) seen, ${repaired} would be repaired, ${unchanged} unchanged, ${unlinked} not linked to any user`
    : `reconciled ${seen} subscription(s): ${repaired} repaired, ${unchanged} unchanged, ${unlinked} not linked to any user`;
}
