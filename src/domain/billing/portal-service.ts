// Opening the provider's hosted billing portal, where a subscriber (a user, or an organisation's
// manager) switches plan, cancels, resumes or updates a card. Nothing changes here: whatever the
// person does there comes back as webhook events through the same exactly-once path as everything
// else.
import { DomainError } from '../errors.ts';
import type { BillingAccount } from '../model/accounts.ts';
import type { Principal } from '../model/callers.ts';
import type { Members } from '../organizations/members.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutSettings } from './checkout-service.ts';
import type { PortalConfigurationId } from './portal-configuration.ts';
import { checkRedirectUrl } from './redirect-urls.ts';

export interface PortalInput {
  return_url?: string;
}

export interface PortalSettings extends Pick<CheckoutSettings, 'appUrl' | 'allowedOrigins'> {
  /** The service's own portal configuration (provider-setup.ts), never the account's default. */
  portalConfiguration: Pick<PortalConfigurationId, 'id' | 'refused'>;
}

export class PortalService {
  constructor(
    private readonly members: Members,
    private readonly payments: PaymentsProvider,
    private readonly settings: PortalSettings,
  ) {}

  async open(principal: Principal, input: PortalInput): Promise<{ url: string }> {
    return this.openFor(input, async () => (await this.members.caller(principal)).user);
  }

  /** The portal of the account `resolve` finds, once the return URL passed (a 422 touches nothing). */
  async openFor(
    input: PortalInput,
    resolve: () => Promise<BillingAccount>,
  ): Promise<{ url: string }> {
    const { appUrl, allowedOrigins } = this.settings;
    const returnUrl =
      input.return_url === undefined
        ? `${appUrl}/billing`
        : checkRedirectUrl('return_url', input.return_url, allowedOrigins);
    const account = await resolve();
    // The provider customer is created by the first checkout; before it there is no account to show.
    if (account.paymentsCustomerId === null) {
      throw new DomainError(
        'nothing_to_manage',
        'There is nothing to manage yet: start a subscription with a checkout first',
      );
    }
    return this.session(account.paymentsCustomerId, returnUrl);
  }

  /**
   * A session on the service's configuration; when the provider refuses that one (deactivated by
   * hand, say), once more on the configuration checked again, which sets it back.
   */
  private async session(customerId: string, returnUrl: string): Promise<{ url: string }> {
    const { portalConfiguration } = this.settings;
    for (let attempt = 1; ; attempt++) {
      const configurationId = await portalConfiguration.id();
      const input = { customerId, returnUrl, configurationId };
      const answer = await this.payments.createPortalSession(input);
      if (answer !== 'configuration_refused') return answer;
      portalConfiguration.refused(configurationId);
      if (attempt === 2)
        throw new DomainError(
          'payments_unavailable',
          'Payment provider unavailable: it refused the billing portal configuration',
        );
    }
  }
}
