// What a verified token says of the caller's organisation, role and scopes, read from its claims
// and nothing else. A claim path is a top-level name taken literally, or a JSON Pointer (leading
// `/`, RFC 6901). Identity providers shape the organisation differently: a string (Auth0, WorkOS,
// Clerk, Entra ID, Zitadel), or Keycloak's list of aliases or object keyed by alias. A token naming
// several organisations names none for billing. Every value is bounded: a token can be refused
// (401), never make a 500.
import { DomainError } from '../../domain/errors.ts';
import type { OrganizationClaim } from '../../domain/model/callers.ts';
import { isStorableText } from '../storable-text.ts';

export interface OrganizationClaimPaths {
  /** Where the token names the organisation. */
  claim: string;
  /** Where it holds the caller's role(s) there; null: no role is read. */
  roleClaim: string | null;
}

const MAX_ID_LENGTH = 255;
const MAX_ROLE_LENGTH = 255;
const MAX_ROLES = 64;
const MAX_SCOPE_LENGTH = 4096;

const invalid = (reason: string) => new DomainError('invalid_token', 'Invalid token', { reason });

type Claims = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One step of a JSON Pointer into a value: an own member, or an array's element by its index. */
function step(value: unknown, token: string): unknown {
  if (Array.isArray(value))
    return /^(0|[1-9]\d{0,8})$/.test(token) ? value[Number(token)] : undefined;
  return isObject(value) && Object.hasOwn(value, token) ? value[token] : undefined;
}

/** The value at `path` (a claim name, or a JSON Pointer with a leading `/`); undefined when absent. */
export function claimAt(claims: Claims, path: string): unknown {
  if (!path.startsWith('/')) return Object.hasOwn(claims, path) ? claims[path] : undefined;
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((value, token) => step(value, token), claims);
}

function organizationId(value: string): string {
  if (value.length > MAX_ID_LENGTH) throw invalid('organisation claim too long');
  if (!isStorableText(value))
    throw invalid('organisation claim has characters that cannot be stored');
  return value;
}

/**
 * The organisation a claim's value names: a string; a list holding exactly one alias; an object
 * holding exactly one alias key (its `id` member when it has one, else the alias). Several: 'several'.
 * Anything else names none.
 */
function namedOrganization(value: unknown): string | 'several' | null {
  if (typeof value === 'string') return value === '' ? null : organizationId(value);
  if (Array.isArray(value)) {
    const names = value.filter(
      (entry): entry is string => typeof entry === 'string' && entry !== '',
    );
    return names.length > 1 ? 'several' : names.length === 1 ? organizationId(names[0]!) : null;
  }
  if (!isObject(value)) return null;
  const aliases = Object.keys(value);
  if (aliases.length !== 1) return aliases.length > 1 ? 'several' : null;
  const alias = aliases[0]!;
  const entry = value[alias];
  const id = isObject(entry) && typeof entry.id === 'string' && entry.id !== '' ? entry.id : alias;
  return alias === '' ? null : organizationId(id);
}

/** The role claim as given: a string, or the strings of a list; null when there is none. */
function roleOf(value: unknown): string | string[] | null {
  const checked = (role: string) => {
    if (role.length > MAX_ROLE_LENGTH) throw invalid('role claim too long');
    if (!isStorableText(role)) throw invalid('role claim has characters that cannot be stored');
    return role;
  };
  if (typeof value === 'string') return value === '' ? null : checked(value);
  if (!Array.isArray(value)) return null;
  if (value.length > MAX_ROLES) throw invalid(`role claim holds more than ${MAX_ROLES} entries`);
  return value.filter((role): role is string => typeof role === 'string').map(checked);
}

export function organizationOf(
  claims: Claims,
  paths: OrganizationClaimPaths,
): OrganizationClaim | null {
  const named = namedOrganization(claimAt(claims, paths.claim));
  if (named === null) return null;
  if (named === 'several') return { kind: 'several' };
  const role = paths.roleClaim === null ? null : roleOf(claimAt(claims, paths.roleClaim));
  return { kind: 'one', idpOrgId: named, role };
}

/** The scopes a token was granted: `scope` (space-separated) and `scp` (a list, or a string as Entra ID writes it). */
export function scopesOf(claims: Claims): Set<string> {
  const scopes = new Set<string>();
  for (const value of [claims.scope, claims.scp]) {
    const words = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
    if (words.join(' ').length > MAX_SCOPE_LENGTH) throw invalid('scope claim too long');
    for (const word of words) if (typeof word === 'string' && word !== '') scopes.add(word);
  }
  return scopes;
}
