// Hosted checkout sessions: what the service asks the provider for, what it records, what the
// provider reports.
import type { SubjectRef } from './callers.ts';

export interface CheckoutSessionRecord {
  id: string;
  owner: SubjectRef;
  url: string;
  priceId: string;
  /** The seats it sells (1 for a user). */
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  /** The trial the session offers, in days; null: none. */
  trialDays: number | null;
  expiresAt: Date;
}

/** A hosted checkout session as the payment provider reports it. */
export interface ProviderCheckoutSession {
  id: string;
  url: string;
  status: 'open' | 'complete' | 'expired';
  expiresAt: Date;
}

/** What a checkout sells besides the price, all chosen on the server, never by the request. */
export interface CheckoutOffer {
  /** Days of trial; null: none. */
  trialDays: number | null;
  /** Whether a trial needs a card up front; without one, a trial that ends unpaid cancels. */
  trialRequiresCard: boolean;
  allowPromotionCodes: boolean;
  automaticTax: boolean;
}

export interface NewCheckoutSession {
  customerId: string;
  priceId: string;
  quantity: number;
  /** Named in the session (client_reference_id) and in the subscription's metadata. */
  owner: SubjectRef;
  successUrl: string;
  cancelUrl: string;
  offer: CheckoutOffer;
}
