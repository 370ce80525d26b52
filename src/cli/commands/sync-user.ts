// sync-user: re-reads a user's subscriptions from the payment provider and fixes the stored state,
// and with it the tier; prints the tier before and after.
import { cliConfig, type Command } from '../command.ts';

export const syncUserCommand: Command = {
  name: 'sync-user',
  usage: '<idp_id>',
  summary: "re-read a user's subscriptions from the payment provider and fix the stored tier",
  help: [
    "For a user whose tier is wrong (events lost beyond the provider's retries): every subscription of",
    "the user's customer, in any status, is read from the provider and stored as a webhook re-read",
    'stores it. Safe to run at any time, as often as needed.',
  ].join('\n'),
  options: {},
  positionals: ['idp_id'],
  async run({ positionals: [idpId] }, io) {
    const config = cliConfig();
    const [{ composeOperator }, { syncUser }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/billing/sync-user.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const { store, policy } = composition;
      const result = await syncUser(
        {
          store,
          payments: await composition.payments(),
          policy,
          log: composition.logger,
        },
        idpId!,
      );
      io.out(`user: ${result.idpId}`);
      io.out(`customer: ${result.customerId ?? 'none (never checked out: nothing to re-read)'}`);
      io.out(
        `subscriptions: ${result.subscriptions.length === 0 ? 'none' : result.subscriptions.join(', ')}`,
      );
      io.out(`tier before: ${result.tierBefore}`);
      io.out(`tier after: ${result.tierAfter}`);
    } finally {
      await composition.close();
    }
  },
};
