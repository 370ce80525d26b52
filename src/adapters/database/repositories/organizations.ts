// Organisations, each read with the subscription that decides its tier, and their members.
import type { Organization } from '../../../domain/model/accounts.ts';
import type {
  OrganizationsRepository,
  SeenOrganization,
} from '../../../domain/ports/organizations.ts';
import type { SqlClient, SqlParam } from '../sql-client.ts';
import {
  DECIDING_SUBSCRIPTION,
  SUBSCRIPTION_COLUMNS,
  toOrganization,
  type OrganizationRow,
} from './rows.ts';

const WITH_SUBSCRIPTION = (organizations: string, extra = '') => `
  SELECT o.id, o.issuer, o.idp_org_id, o.plan, o.payments_customer_id, o.created_at,
    o.first_subscription_at, ${SUBSCRIPTION_COLUMNS}${extra}
  FROM ${organizations} o
  ${DECIDING_SUBSCRIPTION('organization_id', 'o.id')}`;

const BY_IDP_ORG_ID = `${WITH_SUBSCRIPTION('organizations')} WHERE o.issuer = $1 AND o.idp_org_id = $2`;

// The member's last record rides along, so a known member of a known organisation costs one read.
const SEEN_BY = `${WITH_SUBSCRIPTION(
  'organizations',
  `, (SELECT m.last_seen_at FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = o.id AND u.idp_id = $3) AS member_seen_at`,
)} WHERE o.issuer = $1 AND o.idp_org_id = $2`;

// A concurrent first insert can be invisible to this statement's snapshot: upsert reads again.
const UPSERT = `
  WITH written AS (
    INSERT INTO organizations (issuer, idp_org_id) VALUES ($1, $2)
    ON CONFLICT (issuer, idp_org_id) DO NOTHING
    RETURNING *
  ), found AS (
    SELECT * FROM written
    UNION ALL
    SELECT * FROM organizations WHERE issuer = $1 AND idp_org_id = $2 AND NOT EXISTS (SELECT 1 FROM written)
  )
  ${WITH_SUBSCRIPTION('found')}`;

const LINK_CUSTOMER = `
  WITH linked AS (
    UPDATE organizations SET payments_customer_id = $2, updated_at = now()
    WHERE id = $1 AND payments_customer_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM organizations WHERE payments_customer_id = $2)
      AND NOT EXISTS (SELECT 1 FROM users WHERE payments_customer_id = $2)
    RETURNING payments_customer_id)
  SELECT payments_customer_id FROM linked
  UNION ALL SELECT payments_customer_id FROM organizations WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM linked)`;

const SET_PLAN = `
  WITH found AS (
    UPDATE organizations SET plan = $3, updated_at = now() WHERE issuer = $1 AND idp_org_id = $2
    RETURNING *)
  ${WITH_SUBSCRIPTION('found')}`;

// One statement whatever happens: the member's row written unless it was written within
// $3 ms, and the organisation's seats marked as changed when the member is new, or back after
// $4 days away, and $5 says members count as seats. A concurrent first record of the same member
// waits for the other's insert, then finds it recent.
const RECORD_MEMBER = `
  WITH before AS (
    SELECT last_seen_at FROM memberships WHERE organization_id = $1 AND user_id = $2
  ), written AS (
    INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)
    ON CONFLICT (organization_id, user_id) DO UPDATE SET last_seen_at = now()
      WHERE memberships.last_seen_at < now() - $3::float8 * interval '1 millisecond'
    RETURNING 1
  ), verdict AS (
    SELECT CASE
      WHEN NOT EXISTS (SELECT 1 FROM written) THEN 'recent'
      WHEN NOT EXISTS (SELECT 1 FROM before) THEN 'new'
      WHEN (SELECT last_seen_at FROM before) < now() - $4::int * interval '1 day' THEN 'returning'
      ELSE 'seen' END AS found
  ), marked AS (
    SELECT mark_seats_changed($1) FROM verdict WHERE $5 AND found IN ('new', 'returning')
  )
  SELECT found, (SELECT count(*) FROM marked) AS marked FROM verdict`;

export function organizationsRepository(db: SqlClient): OrganizationsRepository {
  const one = async (sql: string, params: SqlParam[]): Promise<Organization | null> => {
    const [row] = await db.query<OrganizationRow>(sql, params);
    return row ? toOrganization(row) : null;
  };
  return {
    async markSubscribed(id, at) {
      await db.query(
        'UPDATE organizations SET first_subscription_at = $2 WHERE id = $1 AND first_subscription_at IS NULL',
        [id, at],
      );
    },
    async findSeenBy(issuer, idpOrgId, memberIdpId): Promise<SeenOrganization | null> {
      const [row] = await db.query<OrganizationRow & { member_seen_at: Date | null }>(SEEN_BY, [
        issuer,
        idpOrgId,
        memberIdpId,
      ]);
      return row ? { organization: toOrganization(row), memberSeenAt: row.member_seen_at } : null;
    },
    async upsert(issuer, idpOrgId) {
      const found =
        (await one(UPSERT, [issuer, idpOrgId])) ?? (await one(BY_IDP_ORG_ID, [issuer, idpOrgId]));
      if (found === null) throw new Error('organisation vanished between upsert and read');
      return found;
    },
    findById: (id) => one(`${WITH_SUBSCRIPTION('organizations')} WHERE o.id = $1`, [id]),
    findByIdpOrgId: (issuer, idpOrgId) => one(BY_IDP_ORG_ID, [issuer, idpOrgId]),
    findByCustomerId: (customerId) =>
      one(`${WITH_SUBSCRIPTION('organizations')} WHERE o.payments_customer_id = $1`, [customerId]),
    async linkCustomer(organizationId, customerId) {
      const [row] = await db.query<{ payments_customer_id: string | null }>(LINK_CUSTOMER, [
        organizationId,
        customerId,
      ]);
      if (!row) throw new Error(`no organisation ${organizationId} to link a customer to`);
      return row.payments_customer_id;
    },
    setPlan: (issuer, idpOrgId, plan) => one(SET_PLAN, [issuer, idpOrgId, plan]),
    async recordMember(organizationId, userId, { refreshAfterMs, activeDays, countsSeats }) {
      const [row] = await db.query<{ found: 'new' | 'returning' | 'seen' | 'recent' }>(
        RECORD_MEMBER,
        [organizationId, userId, refreshAfterMs, activeDays, countsSeats],
      );
      return row!.found;
    },
    async countActiveMembers(organizationId, activeDays) {
      const [row] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM memberships
         WHERE organization_id = $1 AND last_seen_at > now() - $2::int * interval '1 day'`,
        [organizationId, activeDays],
      );
      return row?.n ?? 0;
    },
  };
}
