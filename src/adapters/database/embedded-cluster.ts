// The embedded server's files in DATA_DIR: its cluster (postgres/), its socket's directory
// (postgres-socket/, 0700) and its password (postgres-password). The server asks every connection
// for that password (SCRAM-SHA-256), so being its OS user is not enough: a process must also read
// the file, which only the service's own user can (0600). As root the server runs as `postgres`,
// which reaches the socket but not the password.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stopLeftoverServer } from './leftover-server.ts';
import { runAs, type PostgresBinaries, type RunAs } from './postgres-binaries.ts';

const SOCKET_PATH_MAX = 103; // macOS's limit on a Unix socket's path (Linux allows 107)
const TRUST = /^(\s*(?:local|host)\s.*\s)trust(\s*)$/gm;

const passwordFile = (dataDir: string) => join(dataDir, 'postgres-password');

async function readPassword(dataDir: string): Promise<string> {
  try {
    return (await readFile(passwordFile(dataDir), 'utf8')).trim();
  } catch (error) {
    throw new Error(
      `the embedded PostgreSQL's password cannot be read (${(error as Error).message}): run this as the user the service runs as`,
    );
  }
}

/** The URL of the embedded server of `dataDir`, whether this process or another one runs it. */
export async function embeddedPostgresUrl(dataDir: string): Promise<string> {
  const socket = encodeURIComponent(join(dataDir, 'postgres-socket'));
  return `postgres://postgres:${encodeURIComponent(await readPassword(dataDir))}@localhost/postgres?host=${socket}`;
}

/** A directory the server's user owns, for its cluster and its socket. */
async function serverDirectory(path: string, user: RunAs | null): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  if (user) await chown(path, user.uid, user.gid);
  await chmod(path, 0o700);
}

/** Refuses a DATA_DIR too long for the socket; as root, lets the server's user walk through it. */
async function checkDataDir(dataDir: string, user: RunAs | null): Promise<void> {
  if (join(dataDir, 'postgres-socket', '.s.PGSQL.5432').length > SOCKET_PATH_MAX)
    throw new Error(
      `DATA_DIR ${dataDir} is too long a path for the embedded PostgreSQL's socket: choose a shorter one`,
    );
  if (user === null) return;
  await chmod(dataDir, (await stat(dataDir)).mode | 0o001);
  for (let dir = dirname(dataDir); dir !== dirname(dir); dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0)
      throw new Error(
        `DATA_DIR ${dataDir} is under ${dir}, which the embedded PostgreSQL (run as ${user.name}, since this is root) cannot enter: choose a DATA_DIR elsewhere`,
      );
  }
}

/** Runs initdb into a directory renamed into place once complete: never half a cluster. */
async function createCluster(dataDir: string, initdb: string, user: RunAs | null): Promise<void> {
  const cluster = join(dataDir, 'postgres');
  await rm(`${cluster}.new`, { recursive: true, force: true });
  await serverDirectory(`${cluster}.new`, user);
  // initdb reads the password from a copy its user can read, beside: it wants an empty directory.
  const passwordCopy = `${passwordFile(dataDir)}.initdb`;
  await writeFile(passwordCopy, await readPassword(dataDir), { mode: 0o600 });
  try {
    if (user) await chown(passwordCopy, user.uid, user.gid);
    await runAs(user, initdb, [
      ...['-D', `${cluster}.new`, '-U', 'postgres', '--auth=scram-sha-256'],
      ...[`--pwfile=${passwordCopy}`, '-E', 'UTF8', '--locale=C', '--no-instructions'],
    ]);
  } finally {
    await rm(passwordCopy, { force: true });
  }
  await rename(`${cluster}.new`, cluster);
}

/**
 * A cluster with trust rules gets the password in single-user mode (its server not running) and
 * rules that ask for it, written beside and renamed into place (never half a file, never through
 * a link the server's user planted).
 */
async function requirePassword(dataDir: string, postgres: string, user: RunAs | null) {
  const cluster = join(dataDir, 'postgres');
  const hba = join(cluster, 'pg_hba.conf');
  const found = await lstat(hba);
  if (!found.isFile())
    throw new Error(
      `${hba} is not a plain file: the embedded PostgreSQL's rules cannot be trusted`,
    );
  const rules = await readFile(hba, 'utf8');
  if (rules.match(TRUST) === null) return;
  const password = (await readPassword(dataDir)).replaceAll("'", "''");
  // An error exits 1 and is the last line logged; the statement (it holds the password) is not.
  const quiet = ['exit_on_error=on', 'log_min_messages=fatal', 'log_min_error_statement=panic'];
  await runAs(
    user,
    postgres,
    ['--single', '-D', cluster, ...quiet.flatMap((setting) => ['-c', setting]), 'postgres'],
    `ALTER ROLE postgres PASSWORD '${password}'`,
  );
  await writeFile(`${hba}.new`, rules.replace(TRUST, '$1scram-sha-256$2'), { mode: 0o600 });
  await chown(`${hba}.new`, found.uid, found.gid);
  await rename(`${hba}.new`, hba);
}

/**
 * Makes `dataDir`'s cluster ready for its server to start: its password (made once, by the owner),
 * the cluster (on first use), the socket's directory, no server a killed owner left running on it,
 * and rules asking for the password. The caller must own `dataDir`.
 */
export async function prepareCluster(
  dataDir: string,
  binaries: PostgresBinaries,
  user: RunAs | null,
): Promise<void> {
  await checkDataDir(dataDir, user);
  const made = `${randomBytes(24).toString('base64url')}\n`;
  await writeFile(passwordFile(dataDir), made, { flag: 'wx', mode: 0o600 }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
  if (!existsSync(join(dataDir, 'postgres', 'PG_VERSION')))
    await createCluster(dataDir, binaries.initdb, user);
  await serverDirectory(join(dataDir, 'postgres-socket'), user);
  await stopLeftoverServer(binaries.pg_ctl, join(dataDir, 'postgres'), user);
  await requirePassword(dataDir, binaries.postgres, user);
}
