// The embedded database: a real PostgreSQL server (binaries from npm, see postgres-binaries.ts)
// whose cluster lives in DATA_DIR/postgres, started by the process that owns DATA_DIR and stopped
// when it closes. It listens on a Unix socket only (DATA_DIR/postgres-socket, mode 0700: no port
// to collide with) and asks every connection for a password (embedded-credentials.ts), so operator
// commands run as the service's user reach the running service's data through the same socket.
// Its memory is its own processes', not the service's; its writes are durable as PostgreSQL's
// are. A server left running by an owner that was killed is stopped before a new one starts.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import pg from 'pg';
import { embeddedPostgresUrl, ownPassword, requirePassword } from './embedded-credentials.ts';
import { stopLeftoverServer } from './leftover-server.ts';
import { postgresBinaries, serverUser, type RunAs } from './postgres-binaries.ts';

export interface EmbeddedPostgres {
  /** A postgres:// URL reaching the server through its socket. */
  url: string;
  stop(): Promise<void>;
}

const SOCKET_PATH_MAX = 103; // macOS's limit on a Unix socket's path (Linux allows 107)
const SETTINGS = ['listen_addresses=', 'max_connections=60', 'shared_buffers=32MB'];

async function run(command: string, args: string[], user: RunAs | null): Promise<void> {
  const child = spawn(command, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(user && { uid: user.uid, gid: user.gid }),
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`${command} failed: ${stderr.trim().split('\n').at(-1)}`);
}

/** A directory the server's user owns, for its cluster and its socket. */
async function serverDirectory(path: string, user: RunAs | null): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  if (user) await chown(path, user.uid, user.gid);
  await chmod(path, 0o700);
}

/** As root, the server's user must be able to walk down to DATA_DIR: DATA_DIR gets o+x, its parents must have it. */
async function letServerReach(dataDir: string, user: RunAs): Promise<void> {
  await chmod(dataDir, (await stat(dataDir)).mode | 0o001);
  for (let dir = dirname(dataDir); dir !== dirname(dir); dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0)
      throw new Error(
        `DATA_DIR ${dataDir} is under ${dir}, which the embedded PostgreSQL (run as ${user.name}, since this is root) cannot enter: choose a DATA_DIR elsewhere`,
      );
  }
}

async function waitUntilReady(url: string, exited: Promise<unknown>, log: string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await setTimeout(100)) {
    if (gone)
      throw new Error(
        `the embedded PostgreSQL stopped during start-up: ${(await readFile(log, 'utf8')).trim().split('\n').at(-1)}`,
      );
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {}); // not accepting connections yet
      if ((error as { code?: string }).code?.startsWith('28'))
        throw new Error(
          `the embedded PostgreSQL refused its own password: ${(error as Error).message}`,
        );
    }
  }
  throw new Error(`the embedded PostgreSQL did not accept connections within 60 s (see ${log})`);
}

/** Starts the cluster of `dataDir`, creating it on first use. The caller must own `dataDir`. */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const [binaries, user] = await Promise.all([postgresBinaries(), serverUser()]);
  const cluster = join(dataDir, 'postgres');
  const socketDir = join(dataDir, 'postgres-socket');
  if (join(socketDir, '.s.PGSQL.5432').length > SOCKET_PATH_MAX)
    throw new Error(
      `DATA_DIR ${dataDir} is too long a path for the embedded PostgreSQL's socket: choose a shorter one`,
    );
  if (user) await letServerReach(dataDir, user);
  const password = await ownPassword(dataDir);
  if (!existsSync(join(cluster, 'PG_VERSION'))) {
    const fresh = `${cluster}.new`; // renamed once complete: an interrupted initdb leaves no half cluster
    await rm(fresh, { recursive: true, force: true });
    await serverDirectory(fresh, user);
    // initdb runs as the server's user: it reads the password from a copy only that user can read, removed after.
    const passwordCopy = join(dataDir, 'postgres-password.initdb'); // beside, not inside: initdb wants an empty directory
    await writeFile(passwordCopy, password, { mode: 0o600 });
    try {
      if (user) await chown(passwordCopy, user.uid, user.gid);
      await run(
        binaries.initdb,
        [
          '-D',
          fresh,
          '-U',
          'postgres',
          '--auth=scram-sha-256',
          `--pwfile=${passwordCopy}`,
          '-E',
          'UTF8',
          '--locale=C',
          '--no-instructions',
        ],
        user,
      );
    } finally {
      await rm(passwordCopy, { force: true });
    }
    await rename(fresh, cluster);
  }
  await serverDirectory(socketDir, user);
  await stopLeftoverServer(cluster, user);
  const log = join(dataDir, 'postgres.log');
  const logFile = await open(log, 'a');
  // Detached: Ctrl-C in a terminal reaches the service only; the service stops the server after
  // its in-flight requests are done.
  const server = spawn(
    binaries.postgres,
    ['-D', cluster, '-k', socketDir, ...SETTINGS.flatMap((s) => ['-c', s])],
    {
      detached: true,
      stdio: ['ignore', logFile.fd, logFile.fd],
      ...(user && { uid: user.uid, gid: user.gid }),
    },
  );
  await logFile.close();
  const exited = once(server, 'exit');
  const url = await embeddedPostgresUrl(dataDir);
  try {
    await waitUntilReady(url, exited, log);
    await requirePassword(cluster, url, password);
  } catch (error) {
    server.kill('SIGQUIT');
    throw error;
  }
  return {
    url,
    async stop() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      server.kill('SIGINT');
      await exited;
    },
  };
}
