// set-plan: sets the plan a user is sold, i.e. the tier whose price their next checkout uses.
import { cliConfig, type Command } from '../command.ts';

export const setPlanCommand: Command = {
  name: 'set-plan',
  usage: '<idp_id> <plan>',
  summary: "set the plan (a tier of BILLING_PRICES) a user's next checkout is priced at",
  help: [
    'The plan is held on the server; a client never chooses the price. <plan> must be one of the tiers',
    'of BILLING_PRICES. An existing subscription keeps its price: the tier follows the subscription.',
  ].join('\n'),
  options: {},
  positionals: ['idp_id', 'plan'],
  async run({ positionals: [idpId, plan] }, io) {
    const config = cliConfig();
    const [{ composeOperator }, { setPlan }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/billing/set-plan.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const change = await setPlan(composition.store.users, config.prices, idpId!, plan!);
      const previous = change.previous ?? `${config.defaultPlan} (default)`;
      io.out(
        `${change.idpId}: plan ${previous} -> ${change.plan}; it prices the next checkout, an existing subscription keeps its price`,
      );
    } finally {
      await composition.close();
    }
  },
};
