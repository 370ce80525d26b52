// Subscription state as last applied. The ordering decision is the domain's (domain/webhooks/
// ordering.ts); this only stores, and its conditional write implements that rule's "newer".
import type {
  ConditionalWrite,
  SubscriptionsRepository,
} from '../../../domain/ports/subscriptions.ts';
import type { SubjectRef } from '../../../domain/model/callers.ts';
import type { SubscriptionState } from '../../../domain/model/subscriptions.ts';
import type { SqlClient } from '../sql-client.ts';
import {
  ownerOf,
  SUBSCRIPTION_COLUMNS,
  subscriptionJson,
  toSubscription,
  type OwnerRow,
  type SubscriptionRow,
} from './rows.ts';

type StateToWrite = Omit<SubscriptionState, 'revision' | 'owner'>;

const SELECT_ONE = `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = $1`;

/** $1 to $12 of every statement that writes a state, in this order. */
const stateParams = (s: StateToWrite) => [
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

// Written over a stored state of the same customer as of an earlier second, in one round trip,
// the row as it was beside the row as written; or, when it is not written, what stands in the way.
// The stored row is locked first (FOR UPDATE), so `before` is the version the update replaces.
// `as_of` never decreases, so a stored state at least as new as this one stays so.
const UPDATE_IF_AS_OF_BELOW = `WITH before AS (
    SELECT * FROM subscriptions WHERE id = $1 FOR UPDATE),
  written AS (
    UPDATE subscriptions s SET status = $3, price_id = $4, cancel_at_period_end = $5,
      current_period_end = $6, cancel_at = $7, trial_end = $8,
      payment_failed_at = CASE WHEN $9::timestamptz IS NOT NULL
        THEN COALESCE(s.payment_failed_at, $9::timestamptz) END,
      as_of = $10, item_id = $11, quantity = $12, revision = s.revision + 1, updated_at = now()
    FROM before b WHERE s.id = b.id AND b.customer_id = $2 AND b.as_of < $10
    RETURNING s.*)
  SELECT ${subscriptionJson('b')} AS before, ${subscriptionJson('w')} AS after
  FROM before b LEFT JOIN written w ON true`;

async function updateIfAsOfBelow(db: SqlClient, state: StateToWrite): Promise<ConditionalWrite> {
  const [row] = await db.query<{ before: string; after: string | null }>(
    UPDATE_IF_AS_OF_BELOW,
    stateParams(state),
  );
  if (row === undefined) return { written: false, storedAsOf: null };
  const before = toSubscription(JSON.parse(row.before) as SubscriptionRow)!;
  if (row.after === null) return { written: false, storedAsOf: before.asOf };
  return {
    written: true,
    before,
    after: toSubscription(JSON.parse(row.after) as SubscriptionRow)!,
  };
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
      const rows = await db.query<OwnerRow>(
        `SELECT DISTINCT user_id, organization_id FROM subscriptions
         WHERE customer_id = $1 AND COALESCE(user_id, organization_id) <> $2`,
        [customerId, except.id],
      );
      return rows.map(ownerOf);
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
