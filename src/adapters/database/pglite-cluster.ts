// A fresh PGlite cluster. PGlite runs initdb in WebAssembly at every start, seconds of CPU, and a
// fresh cluster's files are the same each time: so they are kept once per PGlite build, in a
// directory of this user's own under the system's temporary directory, and later starts load
// them (about a fifth of the time). A file that is missing, not this user's or unreadable is
// passed over: the cluster is then made as PGlite makes it, and kept for next time.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

/** Where this PGlite build's fresh cluster is kept, by the identity of its WebAssembly file. */
async function keptClusterPath(): Promise<string> {
  const wasm = fileURLToPath(import.meta.resolve('@electric-sql/pglite/pglite.wasm'));
  const { size, mtimeMs } = await stat(wasm);
  const build = createHash('sha256').update(`${wasm}:${size}:${mtimeMs}`).digest('hex');
  return join(tmpdir(), `billing-pglite-${userInfo().uid}`, `cluster-${build.slice(0, 16)}.tar`);
}

/** The kept files, only from a directory and a file this user owns and no one else may write. */
async function readKept(path: string): Promise<Uint8Array<ArrayBuffer> | null> {
  try {
    const uid = userInfo().uid;
    for (const entry of [join(path, '..'), path]) {
      const { uid: owner, mode } = await stat(entry);
      if (owner !== uid || (mode & 0o022) !== 0) return null;
    }
    return new Uint8Array(await readFile(path));
  } catch {
    return null;
  }
}

async function keep(pg: PGlite, path: string): Promise<void> {
  const files = Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer());
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  // Written aside, then renamed: a start reading it meanwhile sees all of it or nothing.
  const aside = `${path}.${process.pid}`;
  await writeFile(aside, files, { mode: 0o600 });
  await rename(aside, path);
}

export async function freshPglite(): Promise<PGlite> {
  const path = await keptClusterPath();
  const kept = await readKept(path);
  if (kept !== null) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([kept]) });
    } catch {
      // A damaged file: made afresh below, and replaced.
    }
  }
  const pg = await PGlite.create();
  await keep(pg, path).catch(() => {});
  return pg;
}
