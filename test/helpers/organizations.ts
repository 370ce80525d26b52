// Requests as a member of an organisation: the development identity provider's tokens with the
// claims `npm run token -- --org <id> --role <role>` mints (org_id, org_role).
import type { InjectOptions } from 'fastify';
import type { PaymentsProvider } from '../../src/domain/ports/payments-provider.ts';
import { SeatSync, type SeatSyncTiming } from '../../src/domain/seats/seat-sync.ts';
import { bearer, type TestApp } from './app.ts';

/** A token for `sub` naming `org` (undefined: none), with `role` when given. */
export const memberToken = (t: TestApp, sub: string, org?: unknown, role?: unknown) =>
  t.token(sub, undefined, {
    extra: {
      ...(org !== undefined && { org_id: org }),
      ...(role !== undefined && { org_role: role }),
    },
  });

export interface AsMember {
  org?: unknown;
  role?: unknown;
}

/** app.inject as `sub`, a member of `org` with `role`. */
export async function asMember(
  t: TestApp,
  sub: string,
  { org, role }: AsMember,
  request: Omit<InjectOptions, 'headers'> & { headers?: Record<string, string> },
) {
  const token = await memberToken(t, sub, org, role);
  return t.app.inject({ ...request, headers: { ...request.headers, ...bearer(token) } });
}

/** GET /orgs/current/billing as `sub`; throws unless 200. */
export async function orgBilling(t: TestApp, sub: string, member: AsMember) {
  const response = await asMember(t, sub, member, {
    method: 'GET',
    url: '/api/v1/orgs/current/billing',
  });
  if (response.statusCode !== 200)
    throw new Error(`GET /orgs/current/billing answered ${response.statusCode}: ${response.body}`);
  return response.json();
}

/** POST /orgs/current/billing/<path> as `sub` with `body`. */
export const orgPost = (t: TestApp, sub: string, member: AsMember, path: string, body = {}) =>
  asMember(t, sub, member, {
    method: 'POST',
    url: `/api/v1/orgs/current/billing/${path}`,
    payload: body,
  });

/** The tier /users/me answers `sub` with a token naming `org`. */
export const memberTier = async (t: TestApp, sub: string, org?: string) =>
  (await asMember(t, sub, { org }, { method: 'GET', url: '/api/v1/users/me' })).json()
    .tier as string;

/** The id of the subscription stored for the organisation `org` names. */
export async function orgSubscriptionId(t: TestApp, org: string): Promise<string> {
  const [row] = await t.composition.db.query<{ id: string }>(
    `SELECT s.id FROM subscriptions s JOIN organizations o ON o.id = s.organization_id WHERE o.idp_org_id = $1`,
    [org],
  );
  return row!.id;
}

/**
 * A seat engine on the test app's store and provider (or `payments`), as the service builds one,
 * with the timing a test needs: by default it looks at once, with no burst to settle.
 */
export const seatEngine = (
  t: TestApp,
  holder: string,
  timing: Partial<SeatSyncTiming> = { quietMs: 0, maxWaitMs: 0 },
  payments: PaymentsProvider = t.composition.payments,
) =>
  new SeatSync({
    store: t.composition.store,
    payments,
    log: t.composition.logger,
    policy: t.composition.policy,
    metrics: t.composition.services.metrics,
    holder,
    settings: t.config.organizations!.seats,
    timing,
  });
