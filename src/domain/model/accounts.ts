// The billing subjects as stored: users and organisations, each with the subscription that decides
// its tier.
import type { SubscriptionState } from './subscriptions.ts';

export interface User {
  id: string;
  idpId: string;
  email: string;
  plan: string | null;
  paymentsCustomerId: string | null;
  createdAt: Date;
  /** When a subscription was first stored for the user, however it came; null: never (a trial is possible). */
  firstSubscriptionAt: Date | null;
  /** The subscription that decides the tier, if any. */
  subscription: SubscriptionState | null;
}

/** An organisation, as a token's issuer and claim name it, with the subscription its members share. */
export interface Organization {
  id: string;
  issuer: string;
  idpOrgId: string;
  plan: string | null;
  paymentsCustomerId: string | null;
  createdAt: Date;
  /** When a subscription was first stored for it; null: never (a trial is possible). */
  firstSubscriptionAt: Date | null;
  /** The subscription that decides its tier, if any. */
  subscription: SubscriptionState | null;
}

/** What a billing subject, a user or an organisation, is to checkout, the portal and the tier. */
export type BillingAccount = Pick<
  User,
  'id' | 'plan' | 'paymentsCustomerId' | 'firstSubscriptionAt' | 'subscription'
>;
