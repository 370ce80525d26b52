// Starting a hosted subscription checkout, for a user or an organisation alike (billing-subject.ts).
// The price comes from the subject's plan held on the server; the client may only choose where to
// come back to, within the allowed origins.
import { DomainError } from '../errors.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutOffer } from '../model/checkout.ts';
import type { Principal, SubjectRef } from '../model/callers.ts';
import type { CheckoutInput } from './redirect-urls.ts';
import type { Store } from '../ports/store.ts';
import type { Members } from '../organizations/members.ts';
import { customerOf, userSubject, type BillingSubject } from './billing-subject.ts';
import { blocksNewCheckout, type TierPolicy } from './tier.ts';
import { offerFor, planOf, type OfferSettings } from './offer.ts';
import { checkoutReturnUrls } from './redirect-urls.ts';
import { refuseIfOrganizationCovers } from './organization-cover.ts';
import {
  expireAtProvider,
  openSession,
  recordSession,
  sessionDigest,
  type SessionTarget,
} from './subject-sessions.ts';

export interface CheckoutSettings extends OfferSettings {
  appUrl: string;
  allowedOrigins: readonly string[];
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
        refuseIfOrganizationCovers(
          planOf(subject.account, this.settings),
          organization,
          this.deps.policy,
          now,
        );
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
    const urls = checkoutReturnUrls(input, this.settings);
    const subject = await resolve();
    if (blocksNewCheckout(subject.account.subscription, now))
      throw new DomainError('subscription_active', subject.alreadySubscribed);
    const { target, offer } = this.sessionFor(subject, urls);
    const reusable = await openSession(
      this.store.checkoutSessions,
      this.payments,
      subject.ref,
      target,
      now,
    );
    if (reusable) {
      this.deps.metrics.checkoutSession('reused');
      return { url: reusable };
    }
    return { url: await this.newSession(subject, { target, offer }, now) };
  }

  /** What a session for the subject sells: its plan's price, its seats, its offer. */
  private sessionFor(
    { account, defaultPlan, quantity }: BillingSubject,
    urls: Pick<SessionTarget, 'successUrl' | 'cancelUrl'>,
  ): { target: SessionTarget; offer: CheckoutOffer } {
    const settings = { ...this.settings, defaultPlan };
    const offer = offerFor(account, settings);
    const priceId = settings.prices.get(planOf(account, settings))!;
    return { target: { priceId, quantity, ...urls, trialDays: offer.trialDays }, offer };
  }

  /** A session made at the provider and recorded; another click's, when it recorded one first. */
  private async newSession(
    subject: BillingSubject,
    { target, offer }: { target: SessionTarget; offer: CheckoutOffer },
    now: Date,
  ): Promise<string> {
    const customerId = await customerOf(subject, this.store, this.payments);
    // Same subject, target and number of closed sessions -> same key, so concurrent clicks get one
    // session from the provider; the count moves only when a session closes, never when a
    // concurrent click records the one they share.
    const closed = await this.store.checkoutSessions.closedCount(subject.ref, now);
    const key = `checkout:${subject.keyPrefix}:${closed}:${sessionDigest(target, offer)}`;
    const { priceId, quantity, successUrl, cancelUrl } = target;
    const created = await this.payments.createCheckoutSession(
      { customerId, owner: subject.ref, priceId, quantity, successUrl, cancelUrl, offer },
      key,
    );
    const record = { ...target, ...created, owner: subject.ref };
    const { url, replaced } = await this.store.transaction((tx) =>
      recordSession(tx.checkoutSessions, record, now),
    );
    await this.expireReplaced(subject.ref, replaced);
    this.deps.metrics.checkoutSession(url === created.url ? 'created' : 'reused');
    return url;
  }

  /**
   * Expires the subject's replaced sessions at the provider. The provider's failure (logged by the
   * adapter) leaves them `replaced`, for the subject's next checkout to try again.
   */
  private async expireReplaced(owner: SubjectRef, replaced: string[]): Promise<void> {
    const { checkoutSessions } = this.store;
    const ids = [...new Set([...replaced, ...(await checkoutSessions.replacedOf(owner))])];
    await expireAtProvider(ids, this.payments, checkoutSessions).catch((error: unknown) => {
      if (!(error instanceof DomainError)) throw error;
    });
  }
}
