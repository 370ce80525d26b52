// Round trips to PostgreSQL, counted by the kernel: the data segments a server's connections to
// PostgreSQL sent (`ss`'s per-socket data_segs_out). On loopback one write of the client is one
// segment (statements sent together leave in one write), and a server waits for the answer after
// each write but a pipelined one: per request, the writes are its round trips (at most).
import { spawnSync } from 'node:child_process';

/** Segments sent so far by each connection of `pids` to the port, by local address. */
function segmentsSent(pids: readonly number[], port: number): Map<string, number> {
  const listed = spawnSync('ss', ['-tinpH', 'dst', `127.0.0.1:${port}`], { encoding: 'utf8' });
  const sent = new Map<string, number>();
  if (listed.status !== 0) return sent;
  const lines = listed.stdout.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const socket = /^\S+\s+\d+\s+\d+\s+(\S+)\s.*pid=(\d+),/.exec(lines[i]!);
    if (socket === null || !pids.includes(Number(socket[2]))) continue;
    const segments = /data_segs_out:(\d+)/.exec(lines[i + 1]!);
    sent.set(socket[1]!, segments ? Number(segments[1]) : 0);
  }
  return sent;
}

/**
 * Starts counting the writes of `pids` to PostgreSQL at `databaseUrl`; the result gives those
 * made since (connections opened meanwhile count from zero; one closed meanwhile is missed).
 */
export function countDatabaseWrites(pids: readonly number[], databaseUrl: string): () => number {
  const port = Number(new URL(databaseUrl).port || 5432);
  const before = segmentsSent(pids, port);
  return () => {
    let writes = 0;
    for (const [socket, sent] of segmentsSent(pids, port))
      writes += sent - (before.get(socket) ?? 0);
    return writes;
  };
}
