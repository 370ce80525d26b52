// A PostgreSQL server left running by an owner that was killed holds the cluster: the next owner
// stops it before starting its own. Only that server, though: anyone who can write
// postmaster.pid could name another process there, so the process itself is checked (its command
// line is a postgres serving `-D <this cluster>`), and the signal is sent as the server's own
// user, so that as root nothing but that user's processes can be hit. A fast shutdown, then an
// immediate one after 30 s; a server that has not stopped 10 s later, or a process this one cannot
// inspect, stops start-up with one line saying what to do. A file naming a process that is not
// this cluster's server is stale (its pid was reused) and is removed.
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { isRunning } from '../process-identity.ts';
import type { RunAs } from './postgres-binaries.ts';

const FAST_MS = 30_000;
const IMMEDIATE_MS = 10_000;

/** The process's command line, or null when it cannot be read (gone, or hidden from this user). */
function commandLine(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((arg) => arg !== '');
  } catch {
    if (process.platform === 'linux') return null;
    const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }); // macOS: no /proc
    return ps.status === 0 ? ps.stdout.trim().split(/\s+/) : null;
  }
}

const realPath = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/** A postgres whose `-D` is this cluster, by whatever path it was started (a symlink, say). */
function servesCluster(args: string[], cluster: string): boolean {
  const data = args.indexOf('-D');
  if (basename(args[0] ?? '') !== 'postgres' || data === -1) return false;
  const started = realPath(args[data + 1] ?? '');
  return started !== null && started === realPath(cluster);
}

/** Sends `signal` as `user` (or as this process's own user), so only that user's processes can be hit. */
function signalAs(pid: number, signal: NodeJS.Signals, user: RunAs | null): void {
  if (user === null) return void process.kill(pid, signal);
  const as = { uid: user.uid, gid: user.gid, encoding: 'utf8' as const };
  let sent = spawnSync(process.execPath, ['-e', `process.kill(${pid}, '${signal}')`], as);
  if (sent.error) sent = spawnSync('kill', ['-s', signal.slice(3), String(pid)], as); // this node is out of that user's reach
  if (sent.status !== 0 && isRunning({ pid, started: null })) {
    const why =
      sent.error?.message ?? (sent.stderr.trim().split('\n').at(-1) || `exit ${sent.status}`);
    throw new Error(
      `the PostgreSQL server left on this DATA_DIR (process ${pid}) could not be signalled as ${user.name}: ${why}`,
    );
  }
}

async function stopped(pid: number, withinMs: number): Promise<boolean> {
  for (let waited = 0; waited < withinMs; waited += 100) {
    if (!isRunning({ pid, started: null })) return true;
    await setTimeout(100);
  }
  return false;
}

export async function stopLeftoverServer(cluster: string, user: RunAs | null): Promise<void> {
  const lockFile = join(cluster, 'postmaster.pid');
  const pid = Number.parseInt(await readFile(lockFile, 'utf8').catch(() => ''), 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning({ pid, started: null })) return; // none, or stale: PostgreSQL sees to it
  const args = commandLine(pid);
  if (args === null)
    throw new Error(
      `${lockFile} names process ${pid}, which this service cannot inspect: if no PostgreSQL runs on this DATA_DIR, delete that file and start again`,
    );
  if (!servesCluster(args, cluster)) return rm(lockFile, { force: true }); // its pid now belongs to another process
  signalAs(pid, 'SIGINT', user);
  if (await stopped(pid, FAST_MS)) return;
  signalAs(pid, 'SIGQUIT', user);
  if (!(await stopped(pid, IMMEDIATE_MS)))
    throw new Error(
      `the PostgreSQL server left on this DATA_DIR (process ${pid}) did not stop within ${(FAST_MS + IMMEDIATE_MS) / 1000} s: stop it, then start again`,
    );
}
