// The development identity provider's signing key: ES256, generated once and kept under DATA_DIR,
// so tokens minted before a restart stay valid after it.
import { constants } from 'node:fs';
import { copyFile, link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDataDir } from '../adapters/data-dir.ts';
import { exportJWK, generateKeyPair, importJWK, calculateJwkThumbprint, type JWK } from 'jose';

export const SIGNING_ALGORITHM = 'ES256';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function generateSigningKey(
  algorithm = SIGNING_ALGORITHM,
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
    const privateKey = (await importJWK(stored.privateJwk, SIGNING_ALGORITHM)) as CryptoKey;
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
