// set-plan: sets the plan a user (or with --org an organisation) is sold, i.e. the tier whose price
// their next checkout uses.
import { cliConfig, organizationIssuer, type Command } from '../command.ts';

export const setPlanCommand: Command = {
  name: 'set-plan',
  usage: '[--org] <idp_id> <plan>',
  summary:
    "set the plan (a tier of BILLING_PRICES) a user's or organisation's next checkout is priced at",
  help: [
    'The plan is held on the server; a client never chooses the price. <plan> must be one of the tiers',
    'of BILLING_PRICES. An existing subscription keeps its price: the tier follows the subscription.',
    '',
    '  --org   <idp_id> names an organisation (what IDP_ORG_CLAIM reads); its default is BILLING_ORG_PLAN',
  ].join('\n'),
  options: { org: { type: 'boolean' } },
  positionals: ['idp_id', 'plan'],
  async run({ values, positionals: [idpId, plan] }, io) {
    const config = cliConfig();
    const issuer = values.org === true ? organizationIssuer(config) : null;
    const [{ composeOperator }, { setOrganizationPlan, setPlan }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/billing/set-plan.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const { store } = composition;
      const change =
        issuer === null
          ? await setPlan(store.users, config.prices, idpId!, plan!)
          : await setOrganizationPlan(
              store.organizations,
              config.prices,
              { issuer, idpOrgId: idpId! },
              plan!,
            );
      const defaultPlan = issuer === null ? config.defaultPlan : config.organizations!.plan;
      const previous = change.previous ?? `${defaultPlan} (default)`;
      io.out(
        `${issuer === null ? '' : 'organisation '}${change.idpId}: plan ${previous} -> ${change.plan}; it prices the next checkout, an existing subscription keeps its price`,
      );
    } finally {
      await composition.close();
    }
  },
};
