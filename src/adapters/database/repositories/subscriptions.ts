// Subscription state as last applied. The ordering decision is the domain's (domain/webhooks/
// ordering.ts); this only stores, and its conditional write implements that rule's "newer".
import type { ConditionalWrite, SubscriptionsRepository } from '../../../domain/ports/store.ts';
import type { SubjectRef, SubscriptionState } from '../../../domain/model.ts';
import type { SqlClient } from '../sql-client.ts';
import { SUBSCRIPTION_COLUMNS, toSubscription, type SubscriptionRow } from './rows.ts';

type StateToWrite = Omit<SubscriptionState, 'revision' | 'owner'>;

const SELECT_ONE = `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = $1`;

/** $1 to $12 of every statement that writes a state, in this order. */
export const stateParams = (s: StateToWrite) => [
  s.id,
  s.customerId,
  s.status,
  s.priceId,
  s.cancelAtPeriodEnd,
  s.currentPeriodEnd,
  s.cancelAt,
  s.trialEnd,
  s.paymentFailedAt,
  s.asOf,
  s.itemId,
  s.quantity,
];

/** $13 and $14: who pays, as the two columns of which exactly one is set. */
const ownerParams = (owner: SubjectRef) =>
  owner.type === 'user' ? [owner.id, null] : [null, owner.id];

const INSERT = `INSERT INTO subscriptions (id, customer_id, status, price_id, cancel_at_period_end,
    current_period_end, cancel_at, trial_end, payment_failed_at, as_of, item_id, quantity,
    user_id, organization_id, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
  ON CONFLICT (id) DO NOTHING RETURNING 1`;

const UPDATE = `UPDATE subscriptions SET customer_id = $2, status = $3, price_id = $4,
    cancel_at_period_end = $5, current_period_end = $6, cancel_at = $7, trial_end = $8,
    payment_failed_at = $9, as_of = $10, item_id = $11, quantity = $12, user_id = $13,
    organization_id = $14, revision = revision + 1, updated_at = now()
  WHERE id = $1`;

/** The provider's terms of stateParams written over a stored state of the same customer. */
export const SET_NEWER_TERMS = `status = $3, price_id = $4, cancel_at_period_end = $5,
      current_period_end = $6, cancel_at = $7, trial_end = $8,
      payment_failed_at = CASE WHEN $9::timestamptz IS NOT NULL
        THEN COALESCE(payment_failed_at, $9::timestamptz) END,
      as_of = $10, item_id = $11, quantity = $12, revision = revision + 1, updated_at = now()`;

// Written, or what stands in the way, in one round trip. `as_of` never decreases, so a stored
// state at least as new as this one in the statement's snapshot is so still now.
const UPDATE_IF_AS_OF_BELOW = `WITH written AS (
    UPDATE subscriptions SET ${SET_NEWER_TERMS}
    WHERE id = $1 AND customer_id = $2 AND as_of < $10
    RETURNING as_of)
  SELECT true AS written, as_of FROM written
  UNION ALL SELECT false, as_of FROM subscriptions WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM written)`;

async function updateIfAsOfBelow(db: SqlClient, state: StateToWrite): Promise<ConditionalWrite> {
  const [row] = await db.query<{ written: boolean; as_of: string | number }>(
    UPDATE_IF_AS_OF_BELOW,
    stateParams(state),
  );
  if (row?.written) return { written: true };
  return { written: false, storedAsOf: row === undefined ? null : Number(row.as_of) };
}

async function findMany(db: SqlClient, ids: readonly string[], lock: boolean) {
  const rows = await db.query<SubscriptionRow>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = ANY($1) ORDER BY s.id${lock ? ' FOR UPDATE' : ''}`,
    [[...ids]],
  );
  return rows.map((row) => toSubscription(row)!);
}

export function subscriptionsRepository(db: SqlClient): SubscriptionsRepository {
  const findOne = async (sql: string, id: string) => {
    const [row] = await db.query<SubscriptionRow>(sql, [id]);
    return row ? toSubscription(row) : null;
  };
  return {
    find: (id) => findOne(SELECT_ONE, id),
    findForUpdate: (id) => findOne(`${SELECT_ONE} FOR UPDATE`, id),
    findMany: (ids, { lock = false } = {}) => findMany(db, ids, lock),
    async confirm(ids, asOf) {
      if (ids.length === 0) return;
      await db.query(
        'UPDATE subscriptions SET as_of = $2, revision = revision + 1, updated_at = now() WHERE id = ANY($1) AND as_of < $2',
        [[...ids], asOf],
      );
    },
    async holdersOf(customerId, except) {
      const rows = await db.query<{ user_id: string | null; organization_id: string | null }>(
        `SELECT DISTINCT user_id, organization_id FROM subscriptions
         WHERE customer_id = $1 AND COALESCE(user_id, organization_id) <> $2`,
        [customerId, except.id],
      );
      return rows.map((row): SubjectRef =>
        row.user_id !== null
          ? { type: 'user', id: row.user_id }
          : { type: 'organization', id: row.organization_id! },
      );
    },
    insert: async (s) =>
      (await db.query(INSERT, [...stateParams(s), ...ownerParams(s.owner), s.createdAt])).length >
      0,
    async update(s) {
      await db.query(UPDATE, [...stateParams(s), ...ownerParams(s.owner)]);
    },
    updateIfAsOfBelow: (state) => updateIfAsOfBelow(db, state),
  };
}
