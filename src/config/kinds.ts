// The kinds of value a variable holds, as TypeBox schemas that carry the sentence a bad value is
// told (`problem`) and the rules it keeps with other variables (rules.ts reads them).
import { urlToHttpOptions } from 'node:url';
import Type, { type TSchema } from 'typebox';

/** Our keywords beside JSON Schema's; a variable's name where a rule names another. */
export type Keywords = {
  problem?: string;
  /** The value is never repeated in a message. */
  secret?: boolean;
  /** Unset, it is refused when NODE_ENV=production, naming what it would fall back to. */
  requiredInProduction?: string;
  requiredWith?: string;
  /** A value to show in requiredWith's refusal. */
  example?: string;
  needs?: string;
};
export type VariableSchema = TSchema & Keywords & { type?: string };
type Text = Keywords & { pattern?: string; default?: string };

const fallback = <Value>(value?: Value) => (value === undefined ? {} : { default: value });

export const whole = (minimum: number, maximum: number, value?: number) =>
  Type.Integer({
    minimum,
    maximum,
    ...fallback(value),
    problem: `must be a whole number from ${minimum} to ${maximum}`,
  });
export const port = (value?: number) => whole(0, 65535, value);
export const flag = (value?: boolean) =>
  Type.Boolean({ ...fallback(value), problem: 'must be true or false' });
export const oneOf = <const Values extends string[]>(values: [...Values], value: Values[number]) =>
  Type.Enum(values, { default: value, problem: `must be one of ${values.join(', ')}` });
export const text = (keywords: Text = {}) => Type.String(keywords);
/** A name of printable ASCII without spaces: a role, a scope. */
export const PRINTABLE = '^[\\x21-\\x7e]{1,255}$';
export const scope = (value: string) =>
  text({
    default: value,
    pattern: PRINTABLE,
    problem: 'must be one scope: printable characters, no spaces',
  });

/** A claim name taken literally, or with a leading `/` a JSON Pointer into the claims. */
export const claimPath = (keywords: Keywords = {}) =>
  text({
    pattern: '^(?=[^]{1,256}$)(?:[^/][^]*|(?:/(?:[^~/]|~[01])*)+)$',
    problem:
      'must be a claim name, or a JSON Pointer starting with / (a ~ in a name written ~0, a / written ~1), of at most 256 characters',
    ...keywords,
  });

const isHttpUrl = (value: string) =>
  URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);
export const httpUrl = (keywords: Keywords = {}) =>
  Type.Refine(Type.String({ problem: 'must be an absolute http(s) URL', ...keywords }), isHttpUrl);

/** No user or password: they would travel, and be logged, with it; never repeated, lest it hold them. */
export const endpointUrl = (keywords: Keywords) =>
  Type.Refine(
    Type.String({
      problem: 'must be an absolute http(s) URL without a user or password',
      secret: true,
      ...keywords,
    }),
    (value) => isHttpUrl(value) && !new URL(value).username && !new URL(value).password,
  );

/** Comma-separated `item`s. */
export const list = <Item extends TSchema>(
  item: Item,
  keywords: Keywords & { default?: string[] },
) => Type.Array(item, keywords);

/** Standard Webhooks secrets: `whsec_` and the base64 of 24 to 64 bytes, as receivers decode it. */
const isEventSecret = (value: string) => {
  const key = Buffer.from(value.slice('whsec_'.length), 'base64');
  return key.length >= 24 && key.length <= 64 && `whsec_${key.toString('base64')}` === value;
};
export const eventSecrets = (keywords: Keywords) =>
  list(Type.Refine(Type.String({ pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' }), isEventSecret), {
    problem:
      'must be one or more comma-separated whsec_ secrets, each the base64 of 24 to 64 bytes',
    secret: true,
    ...keywords,
  });

/** Origins such as https://app.example.com: no path (a trailing slash is forgiven). */
export const origins = () =>
  list(
    Type.Refine(
      Type.String(),
      (value) => isHttpUrl(value) && new URL(value).origin === value.replace(/\/$/, ''),
    ),
    { problem: 'must list bare http(s) origins like https://app.example.com' },
  );

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** A duration such as `30m`, `6h` or `1d` in milliseconds; NaN when it is not one. */
export function durationMs(value: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(value);
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
}
export const duration = (from: string, to: string) =>
  Type.Refine(
    Type.String({
      problem: `must be a duration from ${from} to ${to} such as 6h or 1d (units s, m, h, d)`,
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

/** A URL's host name without the brackets of an IPv6 address. */
export const hostOf = (url: URL): string => urlToHttpOptions(url).hostname!;

/** A host only this machine reaches. */
export const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || /^127\./.test(host);
