// credits: a subject's credits for the operator, and hand adjustments.
import { cliConfig, UsageError, type Command } from '../command.ts';
import type { OperatorSubject } from '../../domain/credits/credit-operator.ts';
import { spendable } from '../../domain/ports/credits.ts';

const SUBJECT = /^(user|org):(.{1,255})$/;

function subjectOf(text: string): OperatorSubject {
  const match = SUBJECT.exec(text);
  if (match === null) throw new UsageError('<subject> is user:<idp_id> or org:<idp_org_id>');
  return { type: match[1] === 'user' ? 'user' : 'organization', idpId: match[2]! };
}

function deltaOf(text: string | undefined): number {
  if (text === undefined || !/^[+-][1-9][0-9]{0,7}$/.test(text))
    throw new UsageError('adjust needs <+n|-n>: a signed whole number, e.g. +500 or -20');
  return Number(text);
}

const ACTIONS = ['show', 'adjust'];

export const creditsCommand: Command = {
  name: 'credits',
  usage: 'show <subject> | adjust <subject> <+n|-n> --reason "..."',
  summary: "show a subject's credits, or adjust them by hand",
  help: [
    '<subject> is user:<idp_id> or org:<idp_org_id> (what IDP_ORG_CLAIM reads).',
    '',
    '  show     the balance, the grant and purchased credits, and the 20 newest ledger entries',
    '  adjust   adds (+n, as purchased credits, which never expire) or takes (-n, the grant first)',
    '           credits, recorded as an adjustment entry with the reason; never below zero',
    '  --reason why, written on the entry (required with adjust, at most 200 characters)',
  ].join('\n'),
  options: { reason: { type: 'string' } },
  positionals: ['action', 'subject'],
  optionalPositionals: ['amount'],
  async run({ values, positionals: [action, subjectText, amount] }, io) {
    if (!ACTIONS.includes(action!))
      throw new UsageError(`unknown action ${action}: show or adjust`);
    const subject = subjectOf(subjectText!);
    const reason = typeof values.reason === 'string' ? values.reason.trim() : '';
    const delta = action === 'adjust' ? deltaOf(amount) : 0;
    if (action === 'adjust' && (reason === '' || reason.length > 200))
      throw new UsageError('adjust needs --reason "..." (1 to 200 characters)');
    const config = cliConfig();
    const [{ composeOperator }, operator, { creditsPolicy }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/credits/credit-operator.ts'),
      import('../../composition/services.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const { UNREAD_METRICS } = await import('../../adapters/metrics/unread.ts');
      const deps = {
        store: composition.store,
        policy: composition.policy,
        credits: creditsPolicy(config, UNREAD_METRICS),
        issuer: config.organizations?.issuer ?? null,
      };
      if (action === 'adjust') {
        const balance = await operator.adjustCredits(deps, subject, { delta, reason });
        return io.out(`${subjectText}: adjusted by ${amount}; balance ${balance}`);
      }
      const { balance, entries } = await operator.showCredits(deps, subject);
      const { grant, purchased } = balance;
      io.out(`${subjectText}: balance ${spendable(balance)}`);
      io.out(
        grant === null
          ? 'grant: none'
          : `grant: ${grant.remaining} of ${grant.amount}, expires ${grant.expiresAt.toISOString()}`,
      );
      io.out(`purchased: ${purchased}`);
      for (const e of entries)
        io.out(
          `${e.id}\t${e.at.toISOString()}\t${e.kind}\t${e.amount > 0 ? '+' : ''}${e.amount}\t= ${e.balanceAfter}${e.reason === null ? '' : `\t${e.reason}`}`,
        );
    } finally {
      await composition.close();
    }
  },
};
