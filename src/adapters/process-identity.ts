// A pid alone is easily mistaken for another process: after a SIGKILL in a container the next
// start is pid 1 again, and any pid is reused in time. So a process is recorded with when it
// started (on Linux, the boot and /proc/<pid>/stat's start time), and counts as running only while
// a process with that pid and that start runs. Without /proc (macOS) the pid alone decides, except
// that a recorded pid equal to this process's own is never this process: it records itself after.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** When it started, as this machine tells (boot id and start time); null where /proc is not. */
  started: string | null;
}

const readOrNull = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

/** /proc/<pid>/stat from field 3 (the state) on: the name before it may hold spaces. */
function stat(pid: number): string[] | null {
  const text = readOrNull(`/proc/${pid}/stat`);
  return text === null ? null : text.slice(text.lastIndexOf(')') + 2).split(' ');
}

// A sandbox without /proc/sys: the start time alone still tells processes apart.
const bootId = () => readOrNull('/proc/sys/kernel/random/boot_id')?.trim() ?? 'boot';

function startOf(pid: number): string | null {
  const fields = stat(pid);
  return fields === null ? null : `${bootId()}/${fields[19]}`; // field 22: start time, in ticks since boot
}

export function thisProcess(): ProcessIdentity {
  return { pid: process.pid, started: startOf(process.pid) };
}

/** Whether two records name the same process (the pid alone where the start is not known). */
export function sameProcess(a: ProcessIdentity | null, b: ProcessIdentity | null): boolean {
  return a !== null && b !== null && a.pid === b.pid && a.started === b.started;
}

/** Whether the recorded process still runs (also another user's), and not an exited one nobody reaped. */
export function isRunning(recorded: ProcessIdentity): boolean {
  if (recorded.pid === process.pid)
    return recorded.started !== null && recorded.started === startOf(process.pid);
  try {
    process.kill(recorded.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false; // EPERM: alive, but another user's
  }
  if (stat(recorded.pid)?.[0] === 'Z') return false; // a zombie: its parent gone, in a container whose pid 1 does not reap
  const started = startOf(recorded.pid);
  return recorded.started === null || started === null || started === recorded.started;
}

/** The process's arguments, or null when they cannot be read (gone, or hidden from this user). */
export function commandLine(pid: number): string[] | null {
  const proc = readOrNull(`/proc/${pid}/cmdline`);
  if (proc !== null) return proc.split('\0').filter((arg) => arg !== '');
  if (process.platform === 'linux') return null;
  const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }); // macOS: no /proc
  return ps.status === 0 ? ps.stdout.trim().split(/\s+/) : null;
}

/** "pid" and, where known, "started" on a second line: what owner files and records hold. */
export function formatIdentity(identity: ProcessIdentity): string {
  return `${identity.pid}\n${identity.started ?? ''}\n`;
}

export function parseIdentity(text: string): ProcessIdentity | null {
  const [pidLine, startedLine] = text.split('\n');
  const pid = Number.parseInt(pidLine ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, started: startedLine?.trim() || null };
}
