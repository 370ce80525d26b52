// One owner per data directory. The process that runs the embedded database (the service, or an
// operator command while no service runs) first creates DATA_DIR/owner.pid exclusively, with its
// identity in it (pid and start, process-identity.ts); any other process that would run the same
// database finds the file and refuses, naming that pid. A file whose process no longer runs was
// left by a killed owner (SIGKILL, a crash, a container stopped hard) and is taken over, also
// when its pid has since been given to another process, this one included (pid 1 in a container).
// After writing, the owner reads the file back: of two processes taking over the same stale file
// at once, the one not named in it refuses.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { setTimeout } from 'node:timers/promises';
import { join } from 'node:path';
import { ensureDataDir } from '../data-dir.ts';
import {
  formatIdentity,
  isRunning,
  parseIdentity,
  sameProcess,
  thisProcess,
  type ProcessIdentity,
} from '../process-identity.ts';

export class DataDirHeldError extends Error {
  override name = 'DataDirHeldError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is held by process ${pid}: stop that process first, or give this one another DATA_DIR`,
    );
  }
}

export interface DataDirOwnership {
  release(): Promise<void>;
}

const ownerFile = (dataDir: string) => join(dataDir, 'owner.pid');

async function recordedOwner(dataDir: string): Promise<ProcessIdentity | null> {
  try {
    return parseIdentity(await readFile(ownerFile(dataDir), 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null; // no owner: DATA_DIR is not made yet, or cannot be
    throw error;
  }
}

/** The pid of the running process that owns `dataDir`, or null when none does. */
export async function dataDirOwner(dataDir: string): Promise<number | null> {
  const owner = await recordedOwner(dataDir);
  return owner !== null && isRunning(owner) ? owner.pid : null;
}

/**
 * Takes over a file left by a process that is gone. It is moved aside first, so that of two
 * processes taking it over at once only one removes it; if what was moved turns out to be a
 * fresh claim (the other one was quicker), it is put back.
 */
async function takeOver(dataDir: string, self: ProcessIdentity): Promise<void> {
  const aside = `${ownerFile(dataDir)}.${self.pid}.stale`;
  try {
    await rename(ownerFile(dataDir), aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another process took it first
    throw error;
  }
  const moved = parseIdentity(await readFile(aside, 'utf8').catch(() => ''));
  if (moved !== null && isRunning(moved)) {
    await writeFile(ownerFile(dataDir), formatIdentity(moved), { flag: 'wx', mode: 0o644 }).catch(
      () => {},
    );
  }
  await rm(aside, { force: true });
}

/** The owner file as written, waiting a moment if another process has it aside (takeOver). */
async function readBack(dataDir: string): Promise<ProcessIdentity | null> {
  for (let attempt = 0; ; attempt++) {
    const written = await recordedOwner(dataDir);
    if (written !== null || attempt === 5) return written;
    await setTimeout(20);
  }
}

/** Makes this process the owner of `dataDir`, or throws DataDirHeldError naming the one that is. */
export async function claimDataDir(dataDir: string): Promise<DataDirOwnership> {
  await ensureDataDir(dataDir);
  const self = thisProcess();
  for (;;) {
    try {
      await writeFile(ownerFile(dataDir), formatIdentity(self), { flag: 'wx', mode: 0o644 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await dataDirOwner(dataDir);
    if (owner !== null) throw new DataDirHeldError(dataDir, owner);
    await takeOver(dataDir, self);
  }
  const written = await readBack(dataDir);
  if (!sameProcess(written, self)) throw new DataDirHeldError(dataDir, written?.pid ?? 0);
  return {
    async release() {
      if (sameProcess(await recordedOwner(dataDir), self))
        await rm(ownerFile(dataDir), { force: true });
    },
  };
}
