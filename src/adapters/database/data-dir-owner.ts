// One owner per data directory: the process that runs the embedded database (the service, or an
// operator command while no service runs) creates DATA_DIR/owner.pid exclusively, with its pid and
// start (process-identity.ts); another process that would run it refuses, naming that pid. A file
// whose process no longer runs, also when its pid was given to another since (pid 1 again in a
// container), is taken over; of two processes taking over at once, the one not named refuses.
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

const held = (dataDir: string, pid: number) =>
  new Error(
    `DATA_DIR ${dataDir} is held by process ${pid}: stop that process first, or give this one another DATA_DIR`,
  );

export interface DataDirOwnership {
  release(): Promise<void>;
}

const ownerFile = (dataDir: string) => join(dataDir, 'owner.pid');

/** A rejection handler: `value` for an error of one of `codes`, the error thrown on otherwise. */
const onCode =
  <T>(codes: string[], value: T) =>
  (error: NodeJS.ErrnoException): T => {
    if (codes.includes(error.code ?? '')) return value;
    throw error;
  };

async function recordedOwner(dataDir: string): Promise<ProcessIdentity | null> {
  // ENOENT, ENOTDIR: no owner, DATA_DIR is not made yet (or cannot be)
  const text = await readFile(ownerFile(dataDir), 'utf8').catch(onCode(['ENOENT', 'ENOTDIR'], ''));
  return parseIdentity(text);
}

/** Creates the owner file naming `identity`; false when there is one already. */
async function createOwnerFile(dataDir: string, identity: ProcessIdentity): Promise<boolean> {
  const options = { flag: 'wx', mode: 0o644 };
  const created = writeFile(ownerFile(dataDir), formatIdentity(identity), options);
  return created.then(() => true, onCode(['EEXIST'], false));
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
  const movedAside = rename(ownerFile(dataDir), aside).then(() => true, onCode(['ENOENT'], false));
  if (!(await movedAside)) return; // another process took it first
  const moved = parseIdentity(await readFile(aside, 'utf8').catch(() => ''));
  if (moved !== null && isRunning(moved)) await createOwnerFile(dataDir, moved);
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

/** Makes this process the owner of `dataDir`, or throws naming the one that is. */
export async function claimDataDir(dataDir: string): Promise<DataDirOwnership> {
  await ensureDataDir(dataDir);
  const self = thisProcess();
  while (!(await createOwnerFile(dataDir, self))) {
    const owner = await dataDirOwner(dataDir);
    if (owner !== null) throw held(dataDir, owner);
    await takeOver(dataDir, self);
  }
  const written = await readBack(dataDir);
  if (!sameProcess(written, self)) throw held(dataDir, written?.pid ?? 0);
  return {
    async release() {
      if (sameProcess(await recordedOwner(dataDir), self))
        await rm(ownerFile(dataDir), { force: true });
    },
  };
}
