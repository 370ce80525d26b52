// The embedded development identity provider: an ES256 key generated once and kept under
// DATA_DIR, a JWKS, and a token minter. The service verifies its tokens with the same
// jwt-verifier as any real issuer; only the key source is local.
import { constants } from 'node:fs';
import { copyFile, link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDataDir } from '../adapters/data-dir.ts';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type JWK,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';

const ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function generateSigningKey(
  algorithm = ALGORITHM,
): Promise<SigningKey & { privateJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(algorithm, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    privateKey,
    privateJwk: await exportJWK(privateKey),
    publicJwk: { ...publicJwk, kid, alg: algorithm, use: 'sig' },
  };
}

async function readSigningKey(file: string): Promise<SigningKey | null> {
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as { privateJwk: JWK; publicJwk: JWK };
    const privateKey = (await importJWK(stored.privateJwk, ALGORITHM)) as CryptoKey;
    return { kid: stored.publicJwk.kid!, privateKey, publicJwk: stored.publicJwk };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Loads the key kept under dataDir, creating it on first use (mode 0600: it is a private key). A
 * new key is written aside and linked into place, which fails if another process (a first
 * `npm run token` beside a first `npm start`) got there first: then both use that one.
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const file = join(dataDir, 'dev-idp-signing-key.json');
  const stored = await readSigningKey(file);
  if (stored !== null) return stored;
  const key = await generateSigningKey();
  await ensureDataDir(dataDir);
  const aside = `${file}.${process.pid}.tmp`;
  await writeFile(aside, JSON.stringify({ privateJwk: key.privateJwk, publicJwk: key.publicJwk }), {
    mode: 0o600,
  });
  try {
    await link(aside, file).catch(async (error: NodeJS.ErrnoException) => {
      // A filesystem without hard links: an exclusive create, which another reader may see half-written.
      if (error.code !== 'EEXIST') await copyFile(aside, file, constants.COPYFILE_EXCL);
      else throw error;
    });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await readSigningKey(file))!;
  } finally {
    await rm(aside, { force: true });
  }
}

export interface TokenClaims {
  sub: string;
  email?: string;
  issuer: string;
  audience: string;
  ttlSeconds?: number;
  extra?: Record<string, unknown>;
}

export function signToken(key: SigningKey, claims: TokenClaims): Promise<string> {
  const payload = {
    ...claims.extra,
    ...(claims.email === undefined ? {} : { email: claims.email }),
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.publicJwk.alg ?? ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setIssuedAt()
    .setExpirationTime(`${claims.ttlSeconds ?? 3600}s`)
    .sign(key.privateKey);
}

/** Sets `value` at a claim path (a name, or a JSON Pointer with a leading `/`) of `claims`. */
function setClaim(claims: Record<string, unknown>, path: string, value: unknown): void {
  const names = path.startsWith('/')
    ? path
        .slice(1)
        .split('/')
        .map((name) => name.replace(/~1/g, '/').replace(/~0/g, '~'))
    : [path];
  const last = names.pop()!;
  let at = claims;
  for (const name of names) {
    if (typeof at[name] !== 'object' || at[name] === null) at[name] = {};
    at = at[name] as Record<string, unknown>;
  }
  at[last] = value;
}

/**
 * The claims naming an organisation and the caller's role(s) there, written where the service
 * reads them (IDP_ORG_CLAIM and IDP_ORG_ROLE_CLAIM, or the development provider's org_id and
 * org_role): one role as a string, several as a list.
 */
export function organizationClaims(
  paths: { claim: string; roleClaim: string | null },
  organization: string,
  roles: string[],
): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  setClaim(claims, paths.claim, organization);
  if (paths.roleClaim !== null && roles.length > 0)
    setClaim(claims, paths.roleClaim, roles.length === 1 ? roles[0] : roles);
  return claims;
}

export function jwksOf(...keys: SigningKey[]): JSONWebKeySet {
  return { keys: keys.map((key) => key.publicJwk) };
}

export function localKeys(key: SigningKey): JWTVerifyGetKey {
  return createLocalJWKSet(jwksOf(key));
}

/** The dev issuer's identifier: the service's own address, under which it publishes its JWKS. */
export function devIssuerUrl(host: string, port: number): string {
  return `http://${host}:${port}/dev/idp`;
}
