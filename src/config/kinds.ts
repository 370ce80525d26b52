// The kinds of value an environment variable holds, as TypeBox schemas. Each schema carries the
// sentence a bad value is told (`problem`), and `fromText` turns a variable's text into what its
// schema checks (a whole number, true or false, a list), so bounds and types are the schema's.
import Type, { type TSchema } from 'typebox';

/** What each variable states: its meaning in one line, and its default when it has one. */
type About<Value> = {
  description: string;
  default?: Value;
};

/** A variable's schema, with the keywords of ours it may carry beside JSON Schema's. */
export interface VariableSchema extends TSchema {
  type?: string;
  /** What a bad value is told, after the variable's name. */
  problem?: string;
  /** The value is never repeated in a message. */
  secret?: boolean;
}

export const whole = (minimum: number, maximum: number, about: About<number>) =>
  Type.Integer({
    minimum,
    maximum,
    problem: `must be a whole number from ${minimum} to ${maximum}`,
    ...about,
  });

export const port = (about: About<number>) => whole(0, 65535, about);

export const flag = (about: About<boolean>) =>
  Type.Boolean({ problem: 'must be true or false', ...about });

export const oneOf = <const Values extends string[]>(
  values: [...Values],
  about: About<Values[number]>,
) => Type.Enum(values, { problem: `must be one of ${values.join(', ')}`, ...about });

/** Any text, or text matching `pattern`. */
export const text = (
  about: About<string> & { pattern?: string; problem?: string; secret?: boolean },
) => Type.String(about);

/**
 * A claim: a top-level name taken literally (`org_id`, `https://example.com/org`), or with a leading
 * `/` a JSON Pointer into the claims (`/o/id`), `~` written `~0` and `/` written `~1` in a name.
 */
export const claimPath = (about: About<string>) =>
  text({
    pattern: '^(?=[^]{1,256}$)(?:[^/][^]*|(?:/(?:[^~/]|~[01])*)+)$',
    problem:
      'must be a claim name, or a JSON Pointer starting with / (a ~ in a name written ~0, a / written ~1), of at most 256 characters',
    ...about,
  });

const isHttpUrl = (value: string): boolean =>
  URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);

export const httpUrl = (about: About<string>) =>
  Type.Refine(Type.String({ problem: 'must be an absolute http(s) URL', ...about }), isHttpUrl);

const hasNoCredentials = (value: string): boolean =>
  isHttpUrl(value) && new URL(value).username === '' && new URL(value).password === '';

/**
 * An http(s) URL with no user or password in it: they would travel, and be logged, with it. Its
 * value is never repeated in a refusal, lest it hold them.
 */
export const endpointUrl = (about: About<string>) =>
  Type.Refine(
    Type.String({
      problem: 'must be an absolute http(s) URL without a user or password',
      secret: true,
      ...about,
    }),
    hasNoCredentials,
  );

/** Comma-separated `item`s. */
export const list = <Item extends TSchema>(
  item: Item,
  about: About<string[]> & { problem: string; secret?: boolean },
) => Type.Array(item, about);

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 bytes, as the receivers' libraries decode it. */
const isEventSecret = (value: string): boolean => {
  const encoded = value.slice('whsec_'.length);
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 24 && key.length <= 64 && key.toString('base64') === encoded;
};

/** Comma-separated Standard Webhooks secrets. */
export const eventSecrets = (about: About<string[]>) =>
  list(Type.Refine(Type.String({ pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' }), isEventSecret), {
    problem:
      'must be one or more comma-separated whsec_ secrets, each the base64 of 24 to 64 bytes',
    secret: true,
    ...about,
  });

const isBareOrigin = (value: string): boolean =>
  isHttpUrl(value) && new URL(value).origin === value.replace(/\/$/, '');

/** Origins such as https://app.example.com: no path (a trailing slash is forgiven). */
export const origins = (about: About<string[]>) =>
  list(Type.Refine(Type.String(), isBareOrigin), {
    problem: 'must list bare http(s) origins like https://app.example.com',
    ...about,
  });

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `30m`, `6h` or `1d` in milliseconds; NaN when it is not one. */
export function durationMs(value: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(value);
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
}

export const duration = (from: string, to: string, about: About<string>) =>
  Type.Refine(
    Type.String({
      problem: `must be a duration from ${from} to ${to} such as 6h or 1d (units s, m, h, d)`,
      ...about,
    }),
    (value) => durationMs(value) >= durationMs(from) && durationMs(value) <= durationMs(to),
  );

/** The variable's text as its schema checks it; text that cannot be converted stays text, and fails. */
export function fromText(schema: VariableSchema, value: string): unknown {
  if (schema.type === 'integer') return /^\d+$/.test(value) ? Number(value) : value;
  if (schema.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (schema.type === 'array') return value.split(',').map((entry) => entry.trim());
  return value;
}

/** A host only this machine reaches. */
export const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\./.test(host);
