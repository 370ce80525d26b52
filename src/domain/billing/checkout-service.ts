// Starting a hosted subscription checkout. The price comes from the user's plan held on the
// server; the client may only choose where to come back to, within the allowed origins.
import { createHash } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutOffer, Principal, User } from '../model.ts';
import type { Store } from '../ports/store.ts';
import { blocksNewCheckout } from './tier.ts';
import { offerFor, planOf, type OfferSettings } from './offer.ts';
import { checkRedirectUrl } from './redirect-urls.ts';

export interface CheckoutSettings extends OfferSettings {
  appUrl: string;
  allowedOrigins: readonly string[];
}

export interface CheckoutInput {
  success_url?: string;
  cancel_url?: string;
}

interface Target {
  priceId: string;
  successUrl: string;
  cancelUrl: string;
  trialDays: number | null;
}

export class CheckoutService {
  constructor(
    private readonly store: Store,
    private readonly payments: PaymentsProvider,
    private readonly settings: CheckoutSettings,
    private readonly metrics: Pick<Metrics, 'checkoutSession'>,
  ) {}

  async start(
    principal: Principal,
    input: CheckoutInput,
    now = new Date(),
  ): Promise<{ url: string }> {
    const urls = this.redirectUrls(input);
    const user = await this.store.users.upsertByIdpId(principal.idpId, principal.email);
    if (blocksNewCheckout(user.subscription, now)) {
      throw new DomainError('subscription_active', 'You already have an active subscription');
    }
    const offer: CheckoutOffer = offerFor(user, this.settings);
    const target: Target = {
      priceId: this.settings.prices.get(planOf(user, this.settings))!,
      ...urls,
      trialDays: offer.trialDays,
    };
    const reusable = await this.openSession(user, target, now);
    if (reusable) {
      this.metrics.checkoutSession('reused');
      return { url: reusable };
    }
    const customerId = await this.customerOf(user);
    // Same user, same target, same number of earlier sessions -> same key: concurrent clicks
    // get one session from the provider; a later checkout gets a fresh one.
    const attempt = await this.store.checkoutSessions.countForUser(user.id);
    const key = `checkout:${user.id}:${attempt}:${digest({ ...target, offer })}`;
    const { priceId, successUrl, cancelUrl } = target;
    const session = await this.payments.createCheckoutSession(
      { customerId, userId: user.id, priceId, successUrl, cancelUrl, offer },
      key,
    );
    await this.store.checkoutSessions.insert({
      id: session.id,
      userId: user.id,
      url: session.url,
      expiresAt: session.expiresAt,
      ...target,
    });
    this.metrics.checkoutSession('created');
    return { url: session.url };
  }

  private redirectUrls(input: CheckoutInput): Pick<Target, 'successUrl' | 'cancelUrl'> {
    const { appUrl, allowedOrigins } = this.settings;
    return {
      successUrl:
        input.success_url === undefined
          ? `${appUrl}/billing/success?session_id={CHECKOUT_SESSION_ID}`
          : checkRedirectUrl('success_url', input.success_url, allowedOrigins),
      cancelUrl:
        input.cancel_url === undefined
          ? `${appUrl}/billing/cancel`
          : checkRedirectUrl('cancel_url', input.cancel_url, allowedOrigins),
    };
  }

  /** The URL of the user's newest open session for the same target, if the provider agrees it is open. */
  private async openSession(user: User, target: Target, now: Date): Promise<string | null> {
    const stored = await this.store.checkoutSessions.findOpen(user.id, now);
    if (
      !stored ||
      stored.priceId !== target.priceId ||
      stored.successUrl !== target.successUrl ||
      stored.cancelUrl !== target.cancelUrl ||
      stored.trialDays !== target.trialDays
    ) {
      return null;
    }
    const current = await this.payments.retrieveCheckoutSession(stored.id);
    if (current.status === 'open') return stored.url;
    await this.store.checkoutSessions.markStatus(stored.id, current.status);
    return null;
  }

  /** One provider customer per user: the idempotency key and the stored link make it one under races. */
  private async customerOf(user: User): Promise<string> {
    if (user.paymentsCustomerId) return user.paymentsCustomerId;
    const created = await this.payments.createCustomer(
      { userId: user.id, email: user.email },
      `customer:${user.id}`,
    );
    return (await this.store.users.linkCustomer(user.id, created)) ?? created;
  }
}

function digest(what: Target & { offer: CheckoutOffer }): string {
  return createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 16);
}
