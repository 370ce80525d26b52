// The embedded database: a real PostgreSQL server on the cluster in DATA_DIR (embedded-cluster.ts),
// started by the process that owns DATA_DIR and stopped when it closes. It listens on a Unix socket
// only (no port to collide with), so operator commands run as the service's user reach the running
// service's data through that socket. The server is this process's child, so this process reaps it
// when it stops, also where pid 1 reaps nobody.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import pg from 'pg';
import { embeddedPostgresUrl, prepareCluster } from './embedded-cluster.ts';
import { postgresBinaries, serverUser, type RunAs } from './postgres-binaries.ts';

export interface EmbeddedPostgres {
  /** A postgres:// URL reaching the server through its socket. */
  url: string;
  stop(): Promise<void>;
}

const SETTINGS = ['listen_addresses=', 'max_connections=60', 'shared_buffers=32MB'];

/**
 * Runs the server, detached: Ctrl-C in a terminal reaches the service only, which stops the
 * server once its in-flight requests are done.
 */
async function spawnServer(postgres: string, dataDir: string, user: RunAs | null) {
  const log = await open(join(dataDir, 'postgres.log'), 'a');
  try {
    const args = ['-D', join(dataDir, 'postgres'), '-k', join(dataDir, 'postgres-socket')];
    const server = spawn(postgres, [...args, ...SETTINGS.flatMap((s) => ['-c', s])], {
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      ...(user && { uid: user.uid, gid: user.gid }),
    });
    await once(server, 'spawn'); // or the reason it could not be run
    return server;
  } finally {
    await log.close();
  }
}

/** Why a connection to `url` fails (its SQLSTATE in `code`, if the server answered), or null. */
async function connectionRefusal(url: string): Promise<(Error & { code?: string }) | null> {
  const client = new pg.Client({ connectionString: url });
  const refusal = await client.connect().then(
    () => null,
    (error: Error) => error,
  );
  await client.end().catch(() => {});
  return refusal;
}

/** Waits until the server lets its own password in, at most 60 s, failing once it has exited. */
async function waitUntilReady(url: string, server: ChildProcess, dataDir: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await setTimeout(100)) {
    if (server.exitCode !== null || server.signalCode !== null) {
      const log = await readFile(join(dataDir, 'postgres.log'), 'utf8');
      throw new Error(
        `the embedded PostgreSQL stopped during start-up: ${log.trim().split('\n').at(-1)}`,
      );
    }
    const refused = await connectionRefusal(url);
    if (refused === null) return;
    // Class 28 is an authentication failure; anything else is a server still starting.
    if (refused.code?.startsWith('28'))
      throw new Error(`the embedded PostgreSQL refused its own password: ${refused.message}`);
  }
  throw new Error(
    `the embedded PostgreSQL did not accept connections within 60 s (see ${dataDir}/postgres.log)`,
  );
}

/** Starts the cluster of `dataDir`, creating it on first use. The caller must own `dataDir`. */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const user = serverUser();
  const binaries = await postgresBinaries();
  await prepareCluster(dataDir, binaries, user);
  const server = await spawnServer(binaries.postgres, dataDir, user);
  const exited = once(server, 'exit');
  const url = await embeddedPostgresUrl(dataDir);
  try {
    await waitUntilReady(url, server, dataDir);
  } catch (error) {
    server.kill('SIGQUIT');
    throw error;
  }
  return {
    url,
    async stop() {
      server.kill('SIGINT'); // a fast shutdown; nothing once it has exited
      await exited;
    },
  };
}
