// Starting a hosted subscription checkout, for a user or an organisation alike (billing-subject.ts).
// The price comes from the subject's plan held on the server; the client may only choose where to
// come back to, within the allowed origins.
import { createHash } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutOffer, Organization, Principal, SubjectRef } from '../model.ts';
import type { Store } from '../ports/store.ts';
import type { Members } from '../organizations/members.ts';
import { linkCustomerTo, userSubject, type BillingSubject } from './billing-subject.ts';
import { blocksNewCheckout, tierOf, tierRank, type TierPolicy } from './tier.ts';
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
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  trialDays: number | null;
}

export interface CheckoutDeps {
  store: Store;
  payments: PaymentsProvider;
  settings: CheckoutSettings;
  metrics: Pick<Metrics, 'checkoutSession'>;
  members: Members;
  policy: TierPolicy;
}

export class CheckoutService {
  private readonly store: Store;
  private readonly payments: PaymentsProvider;
  private readonly settings: CheckoutSettings;

  constructor(private readonly deps: CheckoutDeps) {
    ({ store: this.store, payments: this.payments, settings: this.settings } = deps);
  }

  /**
   * A personal checkout, refused while the caller's organisation (the one the token names) gives
   * them the tier it sells or a higher one.
   */
  async start(
    principal: Principal,
    input: CheckoutInput,
    now = new Date(),
  ): Promise<{ url: string }> {
    return this.open(
      input,
      async () => {
        const { user, organization } = await this.deps.members.caller(principal, now);
        const subject = userSubject(user, this.settings.defaultPlan);
        this.refuseIfOrganizationCovers(subject, organization, now);
        return subject;
      },
      now,
    );
  }

  /**
   * A checkout for the subject `resolve` finds, once the return URLs passed (a 422 touches
   * nothing): one provider customer per subject, one session for concurrent clicks.
   */
  async open(
    input: CheckoutInput,
    resolve: () => Promise<BillingSubject>,
    now = new Date(),
  ): Promise<{ url: string }> {
    const urls = this.redirectUrls(input);
    const subject = await resolve();
    const { account } = subject;
    if (blocksNewCheckout(account.subscription, now))
      throw new DomainError('subscription_active', subject.alreadySubscribed);
    const settings = { ...this.settings, defaultPlan: subject.defaultPlan };
    const offer: CheckoutOffer = offerFor(account, settings);
    const target: Target = {
      priceId: settings.prices.get(planOf(account, settings))!,
      quantity: subject.quantity,
      ...urls,
      trialDays: offer.trialDays,
    };
    const reusable = await this.openSession(subject.ref, target, now);
    if (reusable) {
      this.deps.metrics.checkoutSession('reused');
      return { url: reusable };
    }
    const customerId = await this.customerOf(subject);
    // Same subject, same target, same number of earlier sessions -> same key: concurrent clicks
    // get one session from the provider; a later checkout gets a fresh one.
    const attempt = await this.store.checkoutSessions.countFor(subject.ref);
    const key = `checkout:${subject.keyPrefix}:${attempt}:${digest({ ...target, offer })}`;
    const { priceId, quantity, successUrl, cancelUrl } = target;
    const session = await this.payments.createCheckoutSession(
      { customerId, owner: subject.ref, priceId, quantity, successUrl, cancelUrl, offer },
      key,
    );
    await this.store.checkoutSessions.insert({
      id: session.id,
      owner: subject.ref,
      url: session.url,
      expiresAt: session.expiresAt,
      ...target,
    });
    this.deps.metrics.checkoutSession('created');
    return { url: session.url };
  }

  private refuseIfOrganizationCovers(
    subject: BillingSubject,
    organization: Organization | null,
    now: Date,
  ): void {
    if (organization === null) return;
    const { policy } = this.deps;
    const theirs = tierOf(organization.subscription, policy, now);
    const sold = planOf(subject.account, this.settings);
    if (tierRank(theirs, policy) >= tierRank(sold, policy))
      throw new DomainError(
        'subscription_active',
        `You already have the ${theirs} tier through your organisation`,
      );
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

  /** The URL of the subject's newest open session for the same target, if the provider agrees it is open. */
  private async openSession(owner: SubjectRef, target: Target, now: Date): Promise<string | null> {
    const stored = await this.store.checkoutSessions.findOpen(owner, now);
    if (
      !stored ||
      stored.priceId !== target.priceId ||
      stored.quantity !== target.quantity ||
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

  /** One provider customer per subject: the idempotency key and the stored link make it one under races. */
  private async customerOf(subject: BillingSubject): Promise<string> {
    if (subject.account.paymentsCustomerId) return subject.account.paymentsCustomerId;
    const created = await this.payments.createCustomer(
      { owner: subject.ref, ...subject.customer },
      `customer:${subject.keyPrefix}`,
    );
    return (await linkCustomerTo(this.store, subject.ref, created)) ?? created;
  }
}

function digest(what: Target & { offer: CheckoutOffer }): string {
  return createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 16);
}
