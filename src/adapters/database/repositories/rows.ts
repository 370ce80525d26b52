// Row <-> domain mapping shared by the repositories.
import type { Organization, User } from '../../../domain/model/accounts.ts';
import type { SubjectRef } from '../../../domain/model/callers.ts';
import type { SubscriptionState, SubscriptionStatus } from '../../../domain/model/subscriptions.ts';

/** pg gives a timestamp as a Date; a row read as one JSON value (`row_to_json`), as ISO text. */
type Timestamp = Date | string;

const at = (value: Timestamp): Date => (typeof value === 'string' ? new Date(value) : value);
const atOrNull = (value: Timestamp | null): Date | null => (value === null ? null : at(value));

export interface SubscriptionRow {
  s_id: string | null;
  s_user_id: string | null;
  s_organization_id: string | null;
  s_customer_id: string;
  s_status: string;
  s_price_id: string | null;
  s_item_id: string | null;
  s_quantity: number | null;
  s_cancel_at_period_end: boolean;
  s_cancel_at: Timestamp | null;
  s_current_period_end: Timestamp | null;
  s_trial_end: Timestamp | null;
  s_payment_failed_at: Timestamp | null;
  s_created_at: Timestamp;
  s_as_of: string | number;
  s_revision: string | number;
}

/** What users and organisations have alike as billing subjects. */
interface AccountRow extends SubscriptionRow {
  id: string;
  plan: string | null;
  payments_customer_id: string | null;
  created_at: Timestamp;
  first_subscription_at: Timestamp | null;
}

export interface UserRow extends AccountRow {
  idp_id: string;
  email: string;
}

export interface OrganizationRow extends AccountRow {
  issuer: string;
  idp_org_id: string;
}

const COLUMNS = [
  'id',
  'user_id',
  'organization_id',
  'customer_id',
  'status',
  'price_id',
  'item_id',
  'quantity',
  'cancel_at_period_end',
  'cancel_at',
  'current_period_end',
  'trial_end',
  'payment_failed_at',
  'created_at',
  'as_of',
  'revision',
];

/** Columns of `subscriptions s` under the s_ prefix that the row mappers read. */
export const SUBSCRIPTION_COLUMNS = COLUMNS.map((c) => `s.${c} AS s_${c}`).join(', ');

/**
 * A subscriptions row named `alias` as one JSON text with the keys the row mappers read (null for
 * no row): pg converts one text column for less than it describes and converts sixteen.
 */
export const subscriptionJson = (alias: string) =>
  `CASE WHEN ${alias}.id IS NOT NULL THEN json_build_object(${COLUMNS.map((c) => `'s_${c}', ${alias}.${c}`).join(', ')})::text END`;

/** Who pays: exactly one of the two columns is set. */
export interface OwnerRow {
  user_id: string | null;
  organization_id: string | null;
}

export const ownerOf = (row: OwnerRow): SubjectRef =>
  row.user_id !== null
    ? { type: 'user', id: row.user_id }
    : { type: 'organization', id: row.organization_id! };

export function toSubscription(row: SubscriptionRow): SubscriptionState | null {
  if (row.s_id === null) return null;
  return {
    id: row.s_id,
    owner: ownerOf({ user_id: row.s_user_id, organization_id: row.s_organization_id }),
    customerId: row.s_customer_id,
    status: row.s_status as SubscriptionStatus,
    priceId: row.s_price_id,
    itemId: row.s_item_id,
    quantity: row.s_quantity,
    cancelAtPeriodEnd: row.s_cancel_at_period_end,
    cancelAt: atOrNull(row.s_cancel_at),
    currentPeriodEnd: atOrNull(row.s_current_period_end),
    trialEnd: atOrNull(row.s_trial_end),
    paymentFailedAt: atOrNull(row.s_payment_failed_at),
    createdAt: at(row.s_created_at),
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
    createdAt: at(row.created_at),
    firstSubscriptionAt: atOrNull(row.first_subscription_at),
    subscription: toSubscription(row),
  };
}

export function toOrganization(row: OrganizationRow): Organization {
  return {
    id: row.id,
    issuer: row.issuer,
    idpOrgId: row.idp_org_id,
    plan: row.plan,
    paymentsCustomerId: row.payments_customer_id,
    createdAt: at(row.created_at),
    firstSubscriptionAt: atOrNull(row.first_subscription_at),
    subscription: toSubscription(row),
  };
}

/** The subscription that decides a subject's tier: a live one first, then the newest. */
export const DECIDING_SUBSCRIPTION = (ownerColumn: 'user_id' | 'organization_id', of: string) => `
  LEFT JOIN LATERAL (
    SELECT * FROM subscriptions
    WHERE ${ownerColumn} = ${of}
    ORDER BY status IN ('active', 'trialing', 'past_due') DESC, created_at DESC
    LIMIT 1
  ) s ON true`;
