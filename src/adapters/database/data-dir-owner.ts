// One owner per data directory. The process that runs the embedded database (the service, or an
// operator command while no service runs) first creates DATA_DIR/owner.pid exclusively, with its
// pid in it; any other process that would run the same database finds the file and refuses,
// naming that pid. A file whose pid is no longer alive was left by a killed owner (SIGKILL, a
// crash) and is taken over. After writing, the owner reads the file back: of two processes
// taking over the same stale file at once, the one whose pid is not in it refuses.
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDataDir } from '../data-dir.ts';

export class DataDirHeldError extends Error {
  override name = 'DataDirHeldError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`DATA_DIR ${dataDir} is held by process ${pid}: stop that process first, or give this one another DATA_DIR`);
  }
}

export interface DataDirOwnership {
  release(): Promise<void>;
}

const ownerFile = (dataDir: string) => join(dataDir, 'owner.pid');

/** An exited process nobody reaped (its parent gone, in a container whose pid 1 does not reap): Linux only. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] === 'Z';
  } catch {
    return false;
  }
}

/** Whether a process with this pid runs (also another user's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, but another user's
  }
  return !isZombie(pid);
}

async function recordedPid(dataDir: string): Promise<number | null> {
  try {
    const pid = Number.parseInt(await readFile(ownerFile(dataDir), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null; // no owner: DATA_DIR is not made yet, or cannot be
    throw error;
  }
}

/** The pid of the live process that owns `dataDir`, or null when none does. */
export async function dataDirOwner(dataDir: string): Promise<number | null> {
  const pid = await recordedPid(dataDir);
  return pid !== null && isAlive(pid) ? pid : null;
}

/** Makes this process the owner of `dataDir`, or throws DataDirHeldError naming the one that is. */
export async function claimDataDir(dataDir: string): Promise<DataDirOwnership> {
  await ensureDataDir(dataDir);
  for (;;) {
    try {
      await writeFile(ownerFile(dataDir), `${process.pid}\n`, { flag: 'wx', mode: 0o644 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await dataDirOwner(dataDir);
    if (owner !== null) throw new DataDirHeldError(dataDir, owner);
    await rm(ownerFile(dataDir), { force: true }); // left by a process that is gone: take it over
  }
  const written = await recordedPid(dataDir);
  if (written !== process.pid) throw new DataDirHeldError(dataDir, written ?? 0);
  return {
    async release() {
      if ((await recordedPid(dataDir)) === process.pid) await rm(ownerFile(dataDir), { force: true });
    },
  };
}
