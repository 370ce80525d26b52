// Starting a hosted subscription checkout. The price comes from the user's plan held on the
// server; the client may only choose where to come back to, within the allowed origins.
import { createHash } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Principal, User } from '../model.ts';
import type { Store } from '../ports/store.ts';
import { blocksNewCheckout } from './tier.ts';
import { checkRedirectUrl } from './redirect-urls.ts';

export interface CheckoutSettings {
  prices: ReadonlyMap<string, string>;
  defaultPlan: string;
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
    const target: Target = { priceId: this.priceFor(user.plan), ...urls };
    if (user.subscription && blocksNewCheckout(user.subscription.status)) {
      throw new DomainError('subscription_active', 'You already have an active subscription');
    }
    const reusable = await this.openSession(user, target, now);
    if (reusable) {
      this.metrics.checkoutSession('reused');
      return { url: reusable };
    }
    const customerId = await this.customerOf(user);
    // Same user, same target, same number of earlier sessions -> same key: concurrent clicks
    // get one session from the provider; a later checkout gets a fresh one.
    const attempt = await this.store.checkoutSessions.countForUser(user.id);
    const key = `checkout:${user.id}:${attempt}:${digest(target)}`;
    const session = await this.payments.createCheckoutSession(
      { customerId, userId: user.id, ...target },
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

  private redirectUrls(input: CheckoutInput): Omit<Target, 'priceId'> {
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

  /** The price of the user's plan, or of the default plan when the user has none (or an unknown one). */
  private priceFor(plan: string | null): string {
    const { prices, defaultPlan } = this.settings;
    return (plan !== null && prices.get(plan)) || prices.get(defaultPlan)!;
  }

  /** The URL of the user's newest open session for the same target, if the provider agrees it is open. */
  private async openSession(user: User, target: Target, now: Date): Promise<string | null> {
    const stored = await this.store.checkoutSessions.findOpen(user.id, now);
    if (
      !stored ||
      stored.priceId !== target.priceId ||
      stored.successUrl !== target.successUrl ||
      stored.cancelUrl !== target.cancelUrl
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

function digest(target: Target): string {
  return createHash('sha256').update(JSON.stringify(target)).digest('hex').slice(0, 16);
}
