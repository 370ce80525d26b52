// Users, each read together with the subscription that decides its tier.
import type { User } from '../../../domain/model/accounts.ts';
import type { UsersRepository } from '../../../domain/ports/users.ts';
import type { SqlClient } from '../sql-client.ts';
import { DECIDING_SUBSCRIPTION, SUBSCRIPTION_COLUMNS, toUser, type UserRow } from './rows.ts';

// Each user with the subscription that decides the tier, as one JSON value: GET /users/me reads a
// user per request, and pg describes and converts each of 23 columns of every result, which cost
// more CPU than parsing one JSON text.
const WITH_SUBSCRIPTION = (users: string, where = '') => `
  SELECT row_to_json(r) AS row FROM (
    SELECT u.id, u.idp_id, u.email, u.plan, u.payments_customer_id, u.created_at,
      u.first_subscription_at, ${SUBSCRIPTION_COLUMNS}
    FROM ${users} u
    ${DECIDING_SUBSCRIPTION('user_id', 'u.id')} ${where}) r`;

// Insert, or update the e-mail only when it changed; the UNION returns the row either way in one
// round trip. A concurrent first insert can be invisible to this statement's snapshot, hence the
// plain re-read in upsertByIdpId. Only used when the plain read finds nothing to return: even
// when it changes nothing, an ON CONFLICT DO UPDATE locks the row, which costs a transaction id and
// a WAL record, and GET /users/me must stay a read.
const UPSERT = `
  WITH written AS (
    INSERT INTO users (idp_id, email) VALUES ($1, $2)
    ON CONFLICT (idp_id) DO UPDATE SET email = EXCLUDED.email, updated_at = now()
      WHERE users.email IS DISTINCT FROM EXCLUDED.email
    RETURNING *
  ), found AS (
    SELECT * FROM written
    UNION ALL
    SELECT * FROM users WHERE idp_id = $1 AND NOT EXISTS (SELECT 1 FROM written)
  )
  ${WITH_SUBSCRIPTION('found')}`;

const BY_IDP_ID = WITH_SUBSCRIPTION('users', 'WHERE u.idp_id = $1');
const BY_ID = WITH_SUBSCRIPTION('users', 'WHERE u.id = $1');
const BY_CUSTOMER_ID = WITH_SUBSCRIPTION('users', 'WHERE u.payments_customer_id = $1');

const SET_PLAN = `
  WITH found AS (UPDATE users SET plan = $2, updated_at = now() WHERE idp_id = $1 RETURNING *)
  ${WITH_SUBSCRIPTION('found')}`;

export function usersRepository(db: SqlClient): UsersRepository {
  const one = async (sql: string, params: string[]): Promise<User | null> => {
    const [found] = await db.query<{ row: UserRow }>(sql, params);
    return found ? toUser(found.row) : null;
  };
  return {
    async markSubscribed(id, at) {
      await db.query(
        'UPDATE users SET first_subscription_at = $2 WHERE id = $1 AND first_subscription_at IS NULL',
        [id, at],
      );
    },
    async upsertByIdpId(idpId, email) {
      // The common case, a known user whose e-mail has not changed: one read-only round trip.
      const known = await one(BY_IDP_ID, [idpId]);
      if (known !== null && known.email === email) return known;
      const user = (await one(UPSERT, [idpId, email])) ?? (await one(BY_IDP_ID, [idpId]));
      if (user === null) throw new Error('user vanished between upsert and read');
      return user;
    },
    async ensureByIdpId(idpId) {
      const known = await one(BY_IDP_ID, [idpId]);
      if (known !== null) return known;
      await db.query(
        `INSERT INTO users (idp_id, email) VALUES ($1, '') ON CONFLICT (idp_id) DO NOTHING`,
        [idpId],
      );
      const user = await one(BY_IDP_ID, [idpId]);
      if (user === null) throw new Error('user vanished between insert and read');
      return user;
    },
    findById: (id) => one(BY_ID, [id]),
    findByIdpId: (idpId) => one(BY_IDP_ID, [idpId]),
    findByCustomerId: (customerId) => one(BY_CUSTOMER_ID, [customerId]),
    async linkCustomer(userId, customerId) {
      // Keeps an existing link, and never takes a customer already linked to someone else (a user
      // or an organisation; migrations/010 refuses the second of two links racing across tables).
      const [row] = await db.query<{ payments_customer_id: string | null }>(
        `WITH linked AS (
           UPDATE users SET payments_customer_id = $2, updated_at = now()
           WHERE id = $1 AND payments_customer_id IS NULL AND NOT EXISTS (SELECT 1 FROM users WHERE payments_customer_id = $2)
             AND NOT EXISTS (SELECT 1 FROM organizations WHERE payments_customer_id = $2)
           RETURNING payments_customer_id)
         SELECT payments_customer_id FROM linked
         UNION ALL SELECT payments_customer_id FROM users WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM linked)`,
        [userId, customerId],
      );
      if (!row) throw new Error(`no user ${userId} to link a customer to`);
      return row.payments_customer_id;
    },
    setPlan: (idpId, plan) => one(SET_PLAN, [idpId, plan]),
  };
}
