// BILLING_ENTITLEMENTS_FILE, read and checked once at start-up (config.ts calls this): for `free`
// and each tier of BILLING_PRICES, {"features": [names], "limits": {name: integer | null}}. Every
// problem names the JSON path at fault ($.pro.limits.projects), so one line says what to fix.
import { readFileSync } from 'node:fs';
import type { EntitlementTable, Entitlements } from './domain/billing/entitlements.ts';

export class EntitlementsFileError extends Error {}

const NAME = /^[a-z0-9_.-]{1,64}$/;
const NAME_RULE = 'must be 1 to 64 characters of a-z, 0-9, "_", "." and "-"';
const MAX_BYTES = 1024 * 1024;

/** A key as a JSON path segment: `.name` when it is a plain name, `["..."]` otherwise. */
const at = (path: string, key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fail(path: string, problem: string): never {
  throw new EntitlementsFileError(`${path} ${problem}`);
}

function features(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) fail(path, 'must be an array of feature names');
  const seen = new Set<string>();
  return value.map((name, index) => {
    const here = `${path}[${index}]`;
    if (typeof name !== 'string' || !NAME.test(name)) fail(here, NAME_RULE);
    if (seen.has(name)) fail(here, `names "${name}" twice`);
    seen.add(name);
    return name;
  });
}

function limits(value: unknown, path: string): Record<string, number | null> {
  if (!isObject(value)) fail(path, 'must be an object of limits, e.g. {"projects": 20}');
  // Object.fromEntries defines own properties: a limit named "__proto__" stays a limit.
  return Object.fromEntries(
    Object.entries(value).map(([name, limit]) => {
      const here = at(path, name);
      if (!NAME.test(name)) fail(here, `is not a valid limit name: names ${NAME_RULE}`);
      if (limit !== null && !(Number.isSafeInteger(limit) && (limit as number) >= 0))
        fail(here, 'must be a non-negative integer or null');
      return [name, limit as number | null];
    }),
  );
}

function entitlements(value: unknown, path: string): Entitlements {
  if (!isObject(value)) fail(path, 'must be an object with "features" and "limits"');
  for (const key of Object.keys(value))
    if (key !== 'features' && key !== 'limits')
      fail(at(path, key), 'is not allowed: a tier has only "features" and "limits"');
  return Object.freeze({
    features: Object.freeze(
      value.features === undefined ? [] : features(value.features, `${path}.features`),
    ),
    limits: Object.freeze(value.limits === undefined ? {} : limits(value.limits, `${path}.limits`)),
  });
}

/** The table in `text` for the tiers `free` and `tiers`; throws naming the JSON path at fault. */
export function parseEntitlements(text: string, tiers: readonly string[]): EntitlementTable {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    fail('$', `is not valid JSON: ${(error as Error).message.replace(/\s+/g, ' ')}`);
  }
  if (!isObject(document))
    fail('$', 'must be an object of tiers, e.g. {"free": {...}, "pro": {...}}');
  const known = ['free', ...tiers];
  const table = new Map<string, Entitlements>();
  for (const [tier, value] of Object.entries(document)) {
    if (!known.includes(tier))
      fail(at('$', tier), `is not a tier: the tiers are ${known.join(', ')}`);
    table.set(tier, entitlements(value, at('$', tier)));
  }
  return table;
}

/** Reads and parses the file at `path`; an unreadable or oversized file is an error too. */
export function readEntitlementsFile(path: string, tiers: readonly string[]): EntitlementTable {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_BYTES) fail('$', `is over ${MAX_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof EntitlementsFileError) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    throw new EntitlementsFileError(
      `cannot be read (${code ?? message.replace(/\s+/g, ' ')}): ${JSON.stringify(path)}`,
    );
  }
  return parseEntitlements(text, tiers);
}
