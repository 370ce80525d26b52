// One owner per data directory. The process that runs the embedded database (the service, or an
// operator command while no service runs) first creates DATA_DIR/owner.pid exclusively, with its
// identity in it (pid and start, process-identity.ts); any other process that would run the same
// database finds the file and refuses, naming that pid. A file whose process no longer runs was
// left by a killed owner (SIGKILL, a crash, a container stopped hard) and is taken over, also
// when its pid has since been given to another process, this one included (pid 1 in a container).
// After writing, the owner reads the file back: of two processes taking over the same stale file
// at once, the one not named in it refuses.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDataDir } from '../data-dir.ts';
import {
  formatIdentity,
  isRunning,
  parseIdentity,
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

const isThisProcess = (identity: ProcessIdentity | null, self: ProcessIdentity) =>
  identity?.pid === self.pid && identity.started === self.started;

/** The pid of the running process that owns `dataDir`, or null when none does. */
export async function dataDirOwner(dataDir: string): Promise<number | null> {
  const owner = await recordedOwner(dataDir);
  return owner !== null && isRunning(owner) ? owner.pid : null;
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
    await rm(ownerFile(dataDir), { force: true }); // left by a process that is gone: take it over
  }
  const written = await recordedOwner(dataDir);
  if (!isThisProcess(written, self)) throw new DataDirHeldError(dataDir, written?.pid ?? 0);
  return {
    async release() {
      if (isThisProcess(await recordedOwner(dataDir), self))
        await rm(ownerFile(dataDir), { force: true });
    },
  };
}
