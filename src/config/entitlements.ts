// BILLING_ENTITLEMENTS_FILE, read once the tiers are known. Unset, the embedded defaults (the
// simulator selling its own prices) use the example file in the repository; otherwise none.
import { resolve } from 'node:path';
import type { EntitlementTable } from '../domain/billing/entitlements.ts';
import { EntitlementsFileError, readEntitlementsFile } from './entitlements-file.ts';
import { EXAMPLE_ENTITLEMENTS_FILE } from './defaults.ts';
import type { Settings } from './environment.ts';
import { tierNames } from './lists.ts';
import type { Problems } from './problems.ts';
import { TIER_VARIABLES } from './rules.ts';

export interface Offered {
  table: EntitlementTable;
  /** Where it was read from; null: none. */
  file: string | null;
}

function fileOf(settings: Settings): string | null {
  if (settings.BILLING_ENTITLEMENTS_FILE !== undefined)
    return resolve(settings.BILLING_ENTITLEMENTS_FILE);
  const embedded = settings.PAYMENTS_API_KEY === undefined && settings.BILLING_PRICES === undefined;
  return embedded ? EXAMPLE_ENTITLEMENTS_FILE : null;
}

/** The entitlements offered; none, and a problem added, when the file is at fault. */
export function readEntitlements(settings: Settings, problems: Problems): Offered {
  const none: Offered = { table: new Map(), file: null };
  const file = fileOf(settings);
  if (file === null || problems.any(['BILLING_ENTITLEMENTS_FILE', ...TIER_VARIABLES])) return none;
  try {
    return { table: readEntitlementsFile(file, tierNames(settings.BILLING_PRICES)), file };
  } catch (error) {
    if (!(error instanceof EntitlementsFileError)) throw error;
    problems.add('BILLING_ENTITLEMENTS_FILE', error.message);
    return none;
  }
}
