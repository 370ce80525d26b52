// Entitlements: what each tier may do (features) and how much (limits), from
// BILLING_ENTITLEMENTS_FILE, so a front end asks one place instead of hard-coding what "pro" means.
// A tier the table does not name has no features and no limits.

export interface Entitlements {
  /** Names of the features the tier has, in the file's order. */
  readonly features: readonly string[];
  /** Limit name -> the most allowed (a non-negative integer), or null for unlimited. */
  readonly limits: Readonly<Record<string, number | null>>;
  /** The credits the tier grants each period (the free tier's: each calendar month). */
  readonly credits: number;
}

/** Tier name ("free" or a tier of BILLING_PRICES) -> its entitlements. */
export type EntitlementTable = ReadonlyMap<string, Entitlements>;

const NONE: Entitlements = Object.freeze({ features: [], limits: {}, credits: 0 });

export function entitlementsOf(tier: string, table: EntitlementTable): Entitlements {
  return table.get(tier) ?? NONE;
}
