// Opening the provider's hosted billing portal, where a subscriber switches plan,
// cancels, resumes or updates a card. Nothing changes here: whatever the person does there comes
// back as webhook events through the same exactly-once path as everything else.
import { DomainError } from '../errors.ts';
import type { Principal } from '../model.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import type { CheckoutSettings } from './checkout-service.ts';
import { checkRedirectUrl } from './redirect-urls.ts';

export interface PortalInput {
  return_url?: string;
}

export class PortalService {
  constructor(
    private readonly store: Store,
    private readonly payments: PaymentsProvider,
    private readonly settings: Pick<CheckoutSettings, 'appUrl' | 'allowedOrigins'>,
  ) {}

  async open(principal: Principal, input: PortalInput): Promise<{ url: string }> {
    const { appUrl, allowedOrigins } = this.settings;
    const returnUrl =
      input.return_url === undefined
        ? `${appUrl}/billing`
        : checkRedirectUrl('return_url', input.return_url, allowedOrigins);
    const user = await this.store.users.upsertByIdpId(principal.idpId, principal.email);
    // The provider customer is created by the first checkout; before it there is no account to show.
    if (user.paymentsCustomerId === null) {
      throw new DomainError(
        'nothing_to_manage',
        'There is nothing to manage yet: start a subscription with a checkout first',
      );
    }
    return this.payments.createPortalSession({ customerId: user.paymentsCustomerId, returnUrl });
  }
}
