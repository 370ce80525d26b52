// The processes the benchmark starts, and the guarantee that it stops them: every child is
// registered here, stopped in reverse order by stopAll(), and killed outright if the benchmark
// itself exits some other way (an exception, Ctrl-C, a failed check).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

export interface Managed {
  name: string;
  child: ChildProcess;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

const running: Managed[] = [];
const cleanups: (() => void)[] = [];

/** A synchronous clean-up to run on any exit (stopping PostgreSQL, say). */
export function onExit(cleanup: () => void): void {
  cleanups.push(cleanup);
}

function killEverything(): void {
  for (const managed of running)
    if (managed.child.exitCode === null && managed.child.signalCode === null)
      managed.child.kill('SIGKILL');
  running.length = 0;
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch {
      // best effort: the process is going away
    }
  }
}

process.on('exit', killEverything);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    console.error(`\nbench: ${signal}, stopping everything it started`);
    void stopAll().finally(() => process.exit(130));
  });
}

export interface StartOptions {
  name: string;
  args: string[];
  env: Record<string, string>;
  /** File the child's stdout and stderr go to. */
  logFile: string;
  /** An IPC channel: a bench helper exits by itself when the benchmark goes away. */
  ipc?: boolean;
}

/** Starts `node ARGS`; its output goes straight to the log file, costing the benchmark nothing. */
export function startNode(options: StartOptions): Managed {
  const log = openSync(options.logFile, 'w');
  const child = spawn(process.execPath, options.args, {
    env: options.env,
    stdio: ['ignore', log, log, ...(options.ipc ? (['ipc'] as const) : [])],
  });
  closeSync(log);
  const exited = once(child, 'exit').then(() => undefined);
  const managed: Managed = {
    name: options.name,
    child,
    exited,
    async stop() {
      const index = running.indexOf(managed);
      if (index >= 0) running.splice(index, 1);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  running.push(managed);
  return managed;
}

/** Stops every registered process, newest first, then runs the exit clean-ups. */
export async function stopAll(): Promise<void> {
  for (const managed of [...running].reverse()) await managed.stop().catch(() => {});
  killEverything();
}

/**
 * Waits until GET url answers 200 (with `anyStatus`, answers at all: a server with no health
 * route), failing early if the process dies.
 */
export async function waitForHttp(
  url: string,
  managed: Managed,
  { anyStatus = false, timeoutMs = 60_000 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died = false;
  void managed.exited.then(() => (died = true));
  while (Date.now() < deadline) {
    if (died)
      throw new Error(
        `${managed.name} exited during start-up (code ${managed.child.exitCode}); see its log`,
      );
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.ok || anyStatus) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${managed.name} did not answer ${url} within ${timeoutMs / 1000} s`);
}

/** The pid and its direct children (the workers of a node:cluster primary). */
export function processTree(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return [pid, ...children];
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Peak resident memory of a process since it started (or since the last reset by watchUsage), MB. */
export function peakRssMb(pid: number): number {
  return statusKb(pid, 'VmHWM') / 1024;
}

/** Proportional memory (shared pages split among their users) of processes, MB in all. */
export function pssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(
        /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0,
      );
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

/** The embedded PostgreSQL a service runs: its postmaster (the service's child) and the postmaster's children. */
export function embeddedPostgresPids(servicePid: number): number[] {
  const comm = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  const postmaster = processTree(servicePid).find(
    (pid) => pid !== servicePid && comm(pid) === 'postgres',
  );
  return postmaster === undefined ? [] : processTree(postmaster);
}

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of this process's children that have exited and been waited for (the kernel's
 * cutime + cstime): a wrk run, a replay command. Read before and after, it gives what they used.
 */
export function exitedChildrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/** CPU seconds of every PostgreSQL process on the machine, by pid. */
function postgresCpu(): Map<number, number> {
  const result = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        result.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return result;
}

export interface Usage {
  /** Resident memory of the biggest serving process when the window opened, MB. */
  rssStartMb: number;
  /** Peak resident memory of the busiest serving process, MB. */
  rssMb: number;
  /** Cores used on average over the window: the server's processes, PostgreSQL's, the load generator's (this process and a wrk it ran). */
  cpu: { server: number; postgres: number; load: number };
}

/**
 * Watches a window: peak resident memory of each process of a tree (the kernel's high-water mark,
 * reset at the start with `clear_refs` 5, combined with 100 ms samples where that reset is
 * refused), and the CPU the server, PostgreSQL and the load generator used. The children this
 * process saw end meanwhile count as load (a wrk run), or as the server (a replay command).
 */
export function watchUsage(
  pids: number[],
  exitedChildrenAre: 'load' | 'server' = 'load',
): () => Usage {
  const peaks = new Map<number, number>();
  for (const pid of pids) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      // not allowed here: the samples below still give a (slightly lower) peak
    }
    peaks.set(pid, statusKb(pid, 'VmRSS'));
  }
  const rssStartMb = Math.max(...peaks.values()) / 1024;
  const sample = () => {
    for (const pid of pids) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, statusKb(pid, 'VmRSS')));
  };
  const started = performance.now();
  const serverCpu = pids.map(cpuSeconds);
  const pgCpu = postgresCpu();
  const loadCpu = process.cpuUsage();
  const exitedCpu = exitedChildrenCpuSeconds();
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    for (const pid of pids) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, statusKb(pid, 'VmHWM')));
    const seconds = (performance.now() - started) / 1000;
    // A serving process gone meanwhile (a command that ended) counts through exitedChildrenCpuSeconds.
    const exited = exitedChildrenCpuSeconds() - exitedCpu;
    const server =
      pids.reduce((sum, pid, i) => sum + Math.max(0, cpuSeconds(pid) - serverCpu[i]!), 0) +
      (exitedChildrenAre === 'server' ? exited : 0);
    const postgres = [...postgresCpu()].reduce(
      (sum, [pid, cpu]) => sum + cpu - (pgCpu.get(pid) ?? 0),
      0,
    );
    const load = process.cpuUsage(loadCpu);
    return {
      rssStartMb,
      rssMb: Math.max(...peaks.values()) / 1024,
      cpu: {
        server: server / seconds,
        postgres: postgres / seconds,
        load:
          ((load.user + load.system) / 1e6 + (exitedChildrenAre === 'load' ? exited : 0)) / seconds,
      },
    };
  };
}
