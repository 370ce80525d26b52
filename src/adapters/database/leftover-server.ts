// A PostgreSQL server left running by an owner that was killed holds the cluster: the next owner
// stops it before starting its own. Only that server: whoever can write postmaster.pid can name
// any process there, so the named process must be a postgres serving `-D <this cluster>` (else
// the file is stale, its pid reused, and is removed), and pg_ctl signals it as the server's own
// user, so that as root no other user's process can be hit.
import { readFile, realpath, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { commandLine, isRunning } from '../process-identity.ts';
import { runAs, type RunAs } from './postgres-binaries.ts';

/** A postgres whose `-D` is this cluster, by whatever path it was started (a symlink, say). */
async function servesCluster(args: string[], cluster: string): Promise<boolean> {
  const data = args.indexOf('-D');
  if (basename(args[0] ?? '') !== 'postgres' || data === -1) return false;
  const started = await realpath(args[data + 1] ?? '').catch(() => null);
  return started === (await realpath(cluster));
}

/** A fast shutdown, then an immediate one after 30 s, sent by pg_ctl as the server's user. */
async function stopAs(user: RunAs | null, pgCtl: string, cluster: string, pid: number) {
  const stop = (mode: string, seconds: number) =>
    runAs(user, pgCtl, ['stop', '-s', '-D', cluster, '-m', mode, '-t', String(seconds)]);
  try {
    await stop('fast', 30).catch(() => stop('immediate', 10));
  } catch (error) {
    if (!isRunning({ pid, started: null })) return;
    throw new Error(
      `the PostgreSQL server left on this DATA_DIR (process ${pid}) could not be signalled as ${user?.name ?? 'this user'}, or did not stop: ${(error as Error).message}`,
    );
  }
}

/** Stops the server `cluster`'s postmaster.pid names, when that is this cluster's server. */
export async function stopLeftoverServer(
  pgCtl: string,
  cluster: string,
  user: RunAs | null,
): Promise<void> {
  const lockFile = join(cluster, 'postmaster.pid');
  const pid = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning({ pid, started: null })) return; // none, or stale: PostgreSQL sees to it
  const args = commandLine(pid);
  if (args === null)
    throw new Error(
      `${lockFile} names process ${pid}, which this service cannot inspect: if no PostgreSQL runs on this DATA_DIR, delete that file and start again`,
    );
  if (!(await servesCluster(args, cluster))) return rm(lockFile, { force: true }); // its pid now belongs to another process
  await stopAs(user, pgCtl, cluster, pid);
}
