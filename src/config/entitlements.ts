// BILLING_ENTITLEMENTS_FILE, read once the tiers are known; unset, the embedded defaults (the
// simulator selling its own prices) use the example file in the repository, others none.
import { resolve } from 'node:path';
import type { EntitlementTable } from '../domain/billing/entitlements.ts';
import {
  EntitlementsFileError,
  readEntitlementsFile,
} from '../adapters/files/entitlements-file.ts';
import { EXAMPLE_ENTITLEMENTS_FILE } from './defaults.ts';
import type { Settings } from './environment.ts';
import { tierNames } from './lists.ts';
import type { Problems } from './read.ts';
import { TIER_VARIABLES } from './rules.ts';

export type Offered = { table: EntitlementTable; file: string | null };

function fileOf(s: Settings): string | null {
  if (s.BILLING_ENTITLEMENTS_FILE !== undefined) return resolve(s.BILLING_ENTITLEMENTS_FILE);
  const embedded = s.PAYMENTS_API_KEY === undefined && s.BILLING_PRICES === undefined;
  return embedded ? EXAMPLE_ENTITLEMENTS_FILE : null;
}

/** The entitlements offered; none, and a problem added, when the file is at fault. */
export function readEntitlements(settings: Settings, problems: Problems): Offered {
  const file = fileOf(settings);
  if (file === null || problems.any(['BILLING_ENTITLEMENTS_FILE', ...TIER_VARIABLES]))
    return { table: new Map(), file: null };
  try {
    return { table: readEntitlementsFile(file, tierNames(settings.BILLING_PRICES)), file };
  } catch (error) {
    if (!(error instanceof EntitlementsFileError)) throw error;
    problems.add('BILLING_ENTITLEMENTS_FILE', error.message);
    return { table: new Map(), file: null };
  }
}
