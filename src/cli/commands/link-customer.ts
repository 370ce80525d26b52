// link-customer: adopts a payment-provider customer made elsewhere (before the service was
// connected, or in the provider's dashboard) for a user, then reconciles that customer's
// subscriptions. Refused, with the reason, when either side is linked to someone else.
import { cliConfig, type Command } from '../command.ts';

export const linkCustomerCommand: Command = {
  name: 'link-customer',
  usage: '<idp_id> <customer_id>',
  summary: 'link a payment-provider customer made elsewhere to a user, then reconcile it',
  help: [
    "Links the provider's customer <customer_id> (cus_...) to the user <idp_id> (the token's subject), then",
    "lists that customer's subscriptions and stores them as a reconciliation does, so the user's tier follows.",
    'Refused, with the reason, when the user is linked to another customer, when the customer is linked to',
    '(or its subscriptions are stored for) another user, or when the provider has no such customer. Running',
    'it again for the same pair only reconciles. Customers are never linked by e-mail.',
  ].join('\n'),
  options: {},
  positionals: ['idp_id', 'customer_id'],
  async run({ positionals: [idpId, customerId] }, io) {
    const config = cliConfig();
    const [{ composeOperator }, { linkCustomer }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/billing/link-customer.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const { store, policy, logger } = composition;
      const result = await linkCustomer(
        {
          store,
          payments: await composition.payments(),
          policy,
          log: logger,
        },
        idpId!,
        customerId!,
        {
          onThrottled: (seconds) =>
            io.progress(`the payment provider is throttling us: waiting ${seconds} s as it asks`),
        },
      );
      io.out(
        `${result.alreadyLinked ? 'already linked' : 'linked'}: ${result.idpId} -> ${result.customerId}`,
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
