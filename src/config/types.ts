// The configuration the service runs on, as config/build.ts shapes it from checked settings.
import type { Interval, PackPrice, TierPrice } from './lists.ts';
import type { EntitlementTable } from '../domain/billing/entitlements.ts';
import type { SeatSettings } from '../domain/seats/desired-seats.ts';

/** A database this process connects to as it is. */
export type ReachableDatabaseConfig =
  | { kind: 'postgres'; url: string; poolSize: number; preparedStatements?: boolean }
  | { kind: 'pglite' }; // PGlite: in memory

/** Or the embedded PostgreSQL under DATA_DIR, which its owner starts first (adapters/database/open.ts). */
export type DatabaseConfig =
  ReachableDatabaseConfig | { kind: 'embedded'; dataDir: string; poolSize: number };

export type IdentityConfig =
  | { kind: 'dev'; audience: string; emailClaim: string }
  | { kind: 'oidc'; issuer: string; audience: string; jwksUrl: string | null; emailClaim: string };

export type PaymentsConfig =
  | {
      kind: 'simulator';
      apiKey: string;
      simulatorHost: string;
      simulatorPort: number;
      livemode: false;
    }
  | { kind: 'stripe'; apiKey: string; apiBase: string | null; livemode: boolean };

/** Organisations as billing subjects; null in Config when no claim names them. */
export interface OrganizationsConfig {
  /** Where the token names the organisation: a claim name, or a JSON Pointer (leading `/`). */
  claim: string;
  /** Where it holds the caller's role(s) there; null: nobody may manage. */
  roleClaim: string | null;
  /** Organisations are keyed by this and the claim's value. */
  issuer: string;
  /** Roles that may buy and manage, as written (compared case-insensitively, `org:` ignored). */
  managerRoles: string[];
  /** The plan an organisation's checkout sells unless an operator set another. */
  plan: string;
  seats: SeatSettings;
}

/** Where /metrics is served: on its own listener (port), or on the API port when apiPort is true. */
export interface MetricsConfig {
  port: number | null;
  host: string;
  /** Bearer token /metrics asks for; null: none. */
  token: string | null;
  apiPort: boolean;
  /** Why it is served nowhere, when it is not; null when it is. */
  off: string | null;
}

/**
 * Outbound events: to the application's endpoint; in development without one, to the service's
 * own receiver (`secrets` null: one generated under DATA_DIR); or not recorded at all.
 */
export type AppEventsConfig =
  | { kind: 'application'; url: string; secrets: string[] }
  | { kind: 'development'; secrets: string[] | null }
  | { kind: 'off' };

export interface Config {
  nodeEnv: 'production' | 'development' | 'test';
  host: string;
  port: number;
  logLevel: string;
  dataDir: string;
  database: DatabaseConfig;
  identity: IdentityConfig;
  organizations: OrganizationsConfig | null;
  /** The scope a backend's token needs to report seat counts. */
  serviceScope: string;
  /** The OAuth clients whose tokens are the application's backend (with serviceScope). */
  serviceClients: string[];
  /** The scope a backend's token needs to spend credits. */
  creditsScope: string;
  /** BILLING_CREDIT_PACKS, in order; [] when nothing is for sale. */
  creditPacks: readonly PackPrice[];
  payments: PaymentsConfig;
  webhookSecrets: string[];
  /**
   * Tier name -> the price its checkout sells (at defaultInterval where the tier has a price at
   * both), in the order given; the first is the default plan.
   */
  prices: ReadonlyMap<string, string>;
  /** Every price of BILLING_PRICES with its tier and interval, in the order given. */
  catalog: readonly TierPrice[];
  defaultInterval: Interval;
  defaultPlan: string;
  appUrl: string;
  allowedOrigins: string[];
  webConcurrency: number;
  graceDays: number;
  /** Tier name -> days of trial its checkout offers (to a user who never had a subscription). */
  trialDays: ReadonlyMap<string, number>;
  /** false: a trial needs no card, and one that ends without a payment method cancels. */
  trialRequiresCard: boolean;
  allowPromotionCodes: boolean;
  automaticTax: boolean;
  /** What each tier may do; a tier missing has no features and no limits. */
  entitlements: EntitlementTable;
  /** Where the entitlements were read from; null: none. */
  entitlementsFile: string | null;
  /** Checkouts one user may start per minute, counted in the database across every instance. */
  checkoutRateLimit: number;
  /** Origins browsers may call the API from; empty: CORS off. */
  corsOrigins: string[];
  /** Longest a client may take to send a whole request, headers and body. */
  requestTimeoutMs: number;
  metrics: MetricsConfig;
  /** Host names, besides IP addresses and localhost, that development pages answer to. */
  localNames: string[];
  /** How often the service reconciles with the payment provider (one instance at a time); null: never. */
  reconcileEveryMs: number | null;
  /** Where outbound events (tier changes and the like) are sent, and signed with what. */
  appEvents: AppEventsConfig;
  /** Days an event's record, and a failure's, are kept. */
  retentionDays: { events: number; failures: number };
}
