// When a server ends a connection, the client's socket stays in CLOSE_WAIT, among the client
// process's sockets, until the process reads the end and closes its side: that is when its error
// and end handlers run. A test that asserts a process survived its connections being cut waits
// here until no such socket is left, rather than for a while. Linux only (/proc).
import { readdir, readFile, readlink } from 'node:fs/promises';

const CLOSE_WAIT = '08';

async function socketInodes(pid: number): Promise<Set<string>> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []); // none once the process is gone
  const links = await Promise.all(
    fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')),
  );
  return new Set(links.flatMap((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1] ?? []));
}

/** How many of the process's connections to `port` the other side closed and the process has not. */
async function closedByPeer(pid: number, port: number): Promise<number> {
  const inodes = await socketInodes(pid);
  const remote = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const tables = await Promise.all(
    ['tcp', 'tcp6'].map((table) => readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')),
  );
  // Each row: sl, local address, remote address, state, queues, timer, retransmits, uid, timeout, inode.
  return tables
    .flatMap((table) => table.split('\n').slice(1))
    .map((row) => row.trim().split(/\s+/))
    .filter((f) => f[2]?.endsWith(remote) && f[3] === CLOSE_WAIT && inodes.has(f[9]!)).length;
}

/** Resolves once the process has taken in the end of every connection to `port` that was cut. */
export async function peerClosesTakenIn(pid: number, port: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await closedByPeer(pid, port);
    if (left === 0) return;
    if (Date.now() > deadline)
      throw new Error(`pid ${pid}: ${left} connections to port ${port} cut and never closed`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
