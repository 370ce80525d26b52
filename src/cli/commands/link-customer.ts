// link-customer: adopts a payment-provider customer made elsewhere (before the service was
// connected, or in the provider's dashboard) for a user, or with --org for an organisation, then
// reconciles that customer's subscriptions. Refused, with the reason, when either side is linked to
// someone else.
import { cliConfig, organizationIssuer, type Command } from '../command.ts';

export const linkCustomerCommand: Command = {
  name: 'link-customer',
  usage: '[--org] <idp_id> <customer_id>',
  summary:
    'link a payment-provider customer made elsewhere to a user or organisation, then reconcile it',
  help: [
    "Links the provider's customer <customer_id> (cus_...) to the user <idp_id> (the token's subject), or with",
    "--org to the organisation <idp_id> (what IDP_ORG_CLAIM reads), then lists that customer's subscriptions",
    'and stores them as a reconciliation does, so the tier follows. Refused, with the reason, when either side',
    "is linked to another customer, user or organisation (a customer is never both a user's and an",
    "organisation's), when its subscriptions are stored for another, or when the provider has no such",
    'customer. Running it again for the same pair only reconciles. Customers are never linked by e-mail.',
    '',
    '  --org   <idp_id> names an organisation',
  ].join('\n'),
  options: { org: { type: 'boolean' } },
  positionals: ['idp_id', 'customer_id'],
  async run({ values, positionals: [idpId, customerId] }, io) {
    const config = cliConfig();
    const issuer = values.org === true ? organizationIssuer(config) : null;
    const [{ composeOperator }, { linkCustomer, linkOrganizationCustomer }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/billing/link-customer.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const { store, policy, logger } = composition;
      const deps = { store, payments: await composition.payments(), policy, log: logger };
      const options = {
        onThrottled: (seconds: number) =>
          io.progress(`the payment provider is throttling us: waiting ${seconds} s as it asks`),
      };
      const result =
        issuer === null
          ? await linkCustomer(deps, idpId!, customerId!, options)
          : await linkOrganizationCustomer(
              deps,
              { issuer, idpOrgId: idpId! },
              customerId!,
              options,
            );
      io.out(
        `${result.alreadyLinked ? 'already linked' : 'linked'}: ${issuer === null ? '' : 'organisation '}${result.idpId} -> ${result.customerId}`,
      );
      io.out(
        `subscriptions: ${result.seen} seen, ${result.repaired} repaired, ${result.unchanged} unchanged, ${result.unlinked} not linked to any user`,
      );
      io.out(`tier before: ${result.tierBefore}`);
      io.out(`tier after: ${result.tierAfter}`);
    } finally {
      await composition.close();
    }
  },
};
