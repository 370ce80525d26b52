// Row <-> domain mapping shared by the repositories.
import type { SubscriptionStatus } from '../../../domain/model.ts';
import type { SubscriptionState, User } from '../../../domain/model.ts';

export interface SubscriptionRow {
  s_id: string | null;
  s_user_id: string;
  s_customer_id: string;
  s_status: string;
  s_price_id: string | null;
  s_cancel_at_period_end: boolean;
  s_cancel_at: Date | null;
  s_current_period_end: Date | null;
  s_trial_end: Date | null;
  s_payment_failed_at: Date | null;
  s_created_at: Date;
  s_as_of: string | number;
  s_revision: string | number;
}

export interface UserRow extends SubscriptionRow {
  id: string;
  idp_id: string;
  email: string;
  plan: string | null;
  payments_customer_id: string | null;
  created_at: Date;
  first_subscription_at: Date | null;
}

/** Columns of `subscriptions s` under the s_ prefix that the row mappers read. */
export const SUBSCRIPTION_COLUMNS = `s.id AS s_id, s.user_id AS s_user_id, s.customer_id AS s_customer_id,
  s.status AS s_status, s.price_id AS s_price_id, s.cancel_at_period_end AS s_cancel_at_period_end,
  s.cancel_at AS s_cancel_at, s.current_period_end AS s_current_period_end, s.trial_end AS s_trial_end, s.payment_failed_at AS s_payment_failed_at,
  s.created_at AS s_created_at, s.as_of AS s_as_of, s.revision AS s_revision`;

export function toSubscription(row: SubscriptionRow): SubscriptionState | null {
  if (row.s_id === null) return null;
  return {
    id: row.s_id,
    userId: row.s_user_id,
    customerId: row.s_customer_id,
    status: row.s_status as SubscriptionStatus,
    priceId: row.s_price_id,
    cancelAtPeriodEnd: row.s_cancel_at_period_end,
    cancelAt: row.s_cancel_at,
    currentPeriodEnd: row.s_current_period_end,
    trialEnd: row.s_trial_end,
    paymentFailedAt: row.s_payment_failed_at,
    createdAt: row.s_created_at,
    asOf: Number(row.s_as_of),
    revision: Number(row.s_revision),
  };
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    idpId: row.idp_id,
    email: row.email,
    plan: row.plan,
    paymentsCustomerId: row.payments_customer_id,
    createdAt: row.created_at,
    firstSubscriptionAt: row.first_subscription_at,
    subscription: toSubscription(row),
  };
}
