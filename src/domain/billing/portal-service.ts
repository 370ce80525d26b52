// Opening the provider's hosted billing portal, where a subscriber (a user, or an organisation's
// manager) switches plan, cancels, resumes or updates a card. Nothing changes here: whatever the
// person does there comes back as webhook events through the same exactly-once path as everything
// else.
import { DomainError } from '../errors.ts';
import type { BillingAccount, Principal } from '../model.ts';
import type { Members } from '../organizations/members.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutSettings } from './checkout-service.ts';
import type { PortalConfigurationId } from './provider-setup.ts';
import { checkRedirectUrl } from './redirect-urls.ts';

export interface PortalInput {
  return_url?: string;
}

export interface PortalSettings extends Pick<CheckoutSettings, 'appUrl' | 'allowedOrigins'> {
  /** The service's own portal configuration (provider-setup.ts), never the account's default. */
  portalConfiguration: Pick<PortalConfigurationId, 'id'>;
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
    return this.payments.createPortalSession({
      customerId: account.paymentsCustomerId,
      returnUrl,
      configurationId: await this.settings.portalConfiguration.id(),
    });
  }
}
