// The parts of the Config that choose an adapter or turn one on: the database, the identity
// provider, organisations, the payment provider and where outbound events go.
import * as defaults from './defaults.ts';
import type { Settings } from './environment.ts';

/** A database this process connects to as it is. */
export type ReachableDatabaseConfig =
  | { kind: 'postgres'; url: string; poolSize: number; preparedStatements?: boolean }
  | { kind: 'pglite' };
/** Or the embedded PostgreSQL under DATA_DIR, which its owner starts first. */
export type DatabaseConfig =
  ReachableDatabaseConfig | { kind: 'embedded'; dataDir: string; poolSize: number };

export function database(s: Settings, dataDir: string): DatabaseConfig {
  const { DATABASE_URL: url, DATABASE_POOL_SIZE: poolSize } = s;
  if (url === defaults.IN_MEMORY) return { kind: 'pglite' };
  if (url === undefined) return { kind: 'embedded', dataDir, poolSize };
  const preparedStatements = s.DATABASE_PREPARED_STATEMENTS;
  return {
    kind: 'postgres',
    url,
    poolSize,
    ...(preparedStatements !== undefined && { preparedStatements }),
  };
}

/** A rule requires IDP_AUDIENCE with IDP_ISSUER. */
export const identity = ({
  IDP_ISSUER: issuer,
  IDP_AUDIENCE: audience,
  IDP_EMAIL_CLAIM: emailClaim,
  IDP_JWKS_URL,
}: Settings) =>
  issuer === undefined
    ? { kind: 'dev' as const, audience: audience ?? defaults.DEV_IDP_AUDIENCE, emailClaim }
    : {
        kind: 'oidc' as const,
        issuer,
        audience: audience!,
        jwksUrl: IDP_JWKS_URL ?? null,
        emailClaim,
      };

/** On when a claim names them: IDP_ORG_CLAIM, or the development identity provider's own claims. */
export function organizations(s: Settings, tiers: string[]) {
  const given = s.IDP_ORG_CLAIM;
  if (given === undefined && s.IDP_ISSUER !== undefined) return null;
  return {
    claim: given ?? defaults.DEV_ORG_CLAIMS.organization,
    roleClaim: s.IDP_ORG_ROLE_CLAIM ?? (given === undefined ? defaults.DEV_ORG_CLAIMS.role : null),
    issuer: s.IDP_ISSUER ?? defaults.DEV_ORG_ISSUER,
    managerRoles: s.BILLING_ORG_MANAGER_ROLES,
    plan: s.BILLING_ORG_PLAN ?? tiers.at(-1)!,
    seats: {
      mode: s.BILLING_SEATS,
      activeDays: s.BILLING_SEAT_ACTIVE_DAYS,
      minimum: s.BILLING_SEAT_MINIMUM,
    },
  };
}

export const payments = ({ PAYMENTS_API_KEY: apiKey, ...s }: Settings) =>
  apiKey === undefined
    ? {
        kind: 'simulator' as const,
        apiKey: defaults.SIMULATOR_API_KEY,
        simulatorHost: s.PAYMENTS_SIMULATOR_HOST,
        simulatorPort: s.PAYMENTS_SIMULATOR_PORT,
        livemode: false as const,
      }
    : {
        kind: 'stripe' as const,
        apiKey,
        apiBase: s.PAYMENTS_API_BASE ?? null,
        livemode: apiKey.includes('_live_'),
      };

/**
 * Outbound events: the application's endpoint; in development without one, the service's own
 * receiver (secrets null: generated under DATA_DIR).
 */
export function appEvents({
  APP_WEBHOOK_URL: url,
  APP_WEBHOOK_SECRET: secrets,
  NODE_ENV,
}: Settings) {
  if (url !== undefined) return { kind: 'application' as const, url, secrets: secrets! };
  if (NODE_ENV === 'development') return { kind: 'development' as const, secrets: secrets ?? null };
  return { kind: 'off' as const };
}
