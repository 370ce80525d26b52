// BILLING_ENTITLEMENTS_FILE, read and checked once at start-up (config calls this) against a
// TypeBox schema: for `free` and each tier of BILLING_PRICES, {"features": [names], "limits":
// {name: integer | null}}. A problem names the JSON path at fault ($.pro.limits.projects) in the
// words of the schema it breaks, so one line says what to fix. Only a regular file is read, and
// never more than the bound: a device or a FIFO named by mistake cannot hold start-up.
import Type, { type TSchema } from 'typebox';
import type { TLocalizedValidationError } from 'typebox/error';
import Value from 'typebox/value';
import { FileRefused, readBoundedFile } from './bounded-file.ts';
import type { EntitlementTable } from '../../domain/billing/entitlements.ts';
import { firstDuplicateKey } from './json-duplicate-keys.ts';

export class EntitlementsFileError extends Error {}

const MAX_BYTES = 1024 * 1024;
const NAME_RULE = 'must be 1 to 64 characters of a-z, 0-9, "_", "." and "-"';
const name = (problem: string) => Type.String({ pattern: '^[a-z0-9_.-]{1,64}$', problem });

const Limit = Type.Union(
  [Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()],
  {
    problem: 'must be a non-negative integer or null',
  },
);

const Tier = Type.Object(
  {
    features: Type.Optional(
      Type.Array(name(NAME_RULE), {
        uniqueItems: true,
        problem: 'must be an array of feature names',
      }),
    ),
    limits: Type.Optional(
      Type.Record(Type.String(), Limit, {
        propertyNames: name(`is not a valid limit name: names ${NAME_RULE}`),
        problem: 'must be an object of limits, e.g. {"projects": 20}',
      }),
    ),
    credits: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000_000,
        problem: 'must be the credits the tier grants each period: an integer, 0 to 10000000',
      }),
    ),
  },
  {
    propertyNames: Type.Enum(['features', 'limits', 'credits'], {
      problem: 'is not allowed: a tier has only "features", "limits" and "credits"',
    }),
    problem: 'must be an object with "features", "limits" and "credits"',
  },
);

const fileSchema = (tiers: string[]) =>
  Type.Record(Type.String(), Tier, {
    propertyNames: Type.Enum(tiers, {
      problem: `is not a tier: the tiers are ${tiers.join(', ')}`,
    }),
    problem: 'must be an object of tiers, e.g. {"free": {...}, "pro": {...}}',
  });

/** A JSON pointer as a person reads it: /pro/limits/API calls -> $.pro.limits["API calls"]. */
const jsonPath = (document: unknown, pointer: string): string =>
  pathOf(document, Value.Pointer.Indices(pointer));

function pathOf(document: unknown, keys: string[]): string {
  let path = '$';
  let value = document;
  for (const key of keys) {
    if (Array.isArray(value)) path += `[${key}]`;
    else path += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    value = (value as Record<string, unknown>)[key];
  }
  return path;
}

/** The deepest `problem` on the way to the schema the error is from. */
function problemOf(schema: TSchema, error: TLocalizedValidationError): string {
  let node = schema as Record<string, unknown> | undefined;
  let problem = node?.problem;
  for (const key of Value.Pointer.Indices(error.schemaPath.replace(/^#/, ''))) {
    node = node?.[key] as Record<string, unknown> | undefined;
    problem = node?.problem ?? problem;
  }
  return typeof problem === 'string' ? problem : error.message;
}

function describe(document: unknown, schema: TSchema, error: TLocalizedValidationError): string {
  if (error.keyword === 'uniqueItems') {
    const index = error.params.duplicateItems[0]!;
    const item = (Value.Pointer.Get(document, error.instancePath) as unknown[])[index];
    return `${jsonPath(document, `${error.instancePath}/${index}`)} names ${JSON.stringify(item)} twice`;
  }
  return `${jsonPath(document, error.instancePath)} ${problemOf(schema, error)}`;
}

/** The table in `text` for the tiers `free` and `tiers`; throws naming the JSON path at fault. */
function parseEntitlements(text: string, tiers: readonly string[]): EntitlementTable {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new EntitlementsFileError(
      `$ is not valid JSON: ${(error as Error).message.replace(/\s+/g, ' ')}`,
    );
  }
  const repeated = firstDuplicateKey(text);
  if (repeated !== null)
    throw new EntitlementsFileError(`${pathOf(document, repeated)} is given twice`);
  const schema = fileSchema(['free', ...tiers]);
  const [error] = Value.Errors(schema, document);
  if (error !== undefined) throw new EntitlementsFileError(describe(document, schema, error));
  return new Map(
    Object.entries(document as Type.Static<typeof schema>).map(
      ([tier, { features = [], limits = {}, credits = 0 }]) => [
        tier,
        Object.freeze({
          features: Object.freeze(features),
          limits: Object.freeze(limits),
          credits,
        }),
      ],
    ),
  );
}

/** Reads and parses the file at `path`; an unreadable, irregular or oversized file is an error too. */
export function readEntitlementsFile(path: string, tiers: readonly string[]): EntitlementTable {
  let bytes: Buffer;
  try {
    bytes = readBoundedFile(path, MAX_BYTES);
  } catch (error) {
    throw error instanceof FileRefused ? new EntitlementsFileError(error.message) : error;
  }
  return parseEntitlements(bytes.toString('utf8'), tiers);
}
