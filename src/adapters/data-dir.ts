// DATA_DIR holds what the service keeps on this machine: the embedded database and its owner
// lock, the development signing key, the running service's record. It is created on first use,
// with its parents (as `mkdir -p` makes them), so a fresh clone or a new path just works; DATA_DIR
// itself is made 0700, since it holds a private key and the database. Every writer calls this
// first, so nothing is created where nothing is written (PostgreSQL with a real issuer).
import { existsSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Creates `dataDir` when missing; throws one line naming DATA_DIR and why it cannot be had. */
export async function ensureDataDir(dataDir: string): Promise<void> {
  try {
    await mkdir(dirname(dataDir), { recursive: true });
    await mkdir(dataDir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const found = await stat(dataDir);
    if (!found.isDirectory()) throw new Error(`${dataDir} is not a directory`);
    // Commands believe what they find here (the running service's record, its database's password).
    if ((found.mode & 0o002) !== 0)
      throw new Error(
        `every user of this machine may write into it (mode ${(found.mode & 0o777).toString(8)}): chmod 700 it, or choose another`,
      );
  } catch (error) {
    throw new Error(
      `DATA_DIR ${dataDir} cannot be created: ${blockingFile(dataDir) ?? (error instanceof Error ? error.message : String(error))}`,
    );
  }
}

/** A file where DATA_DIR or one of its parents should be, said plainly (mkdir only says EEXIST or ENOTDIR). */
function blockingFile(dataDir: string): string | null {
  let path = dataDir;
  while (!existsSync(path) && path !== dirname(path)) path = dirname(path);
  return statSync(path).isDirectory() ? null : `${path} is a file, not a directory`;
}
