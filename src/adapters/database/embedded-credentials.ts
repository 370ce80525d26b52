// The embedded server asks every connection for a password (SCRAM-SHA-256), so being its OS user
// is not enough: a process must also read DATA_DIR/postgres-password, a random password in a file
// only the service's own user can read (mode 0600). As root, the server runs as `postgres`, which
// can reach the socket but not that file. A cluster made by an earlier version (trust
// authentication) is given the password and switched to SCRAM on its next start.
import { randomBytes } from 'node:crypto';
import { chown, lstat, readFile, rename, writeFile } from 'node:fs/promises';
import { setTimeout } from 'node:timers/promises';
import { join } from 'node:path';
import pg from 'pg';

const passwordFile = (dataDir: string) => join(dataDir, 'postgres-password');

/** The password of `dataDir`'s server, made (once, by its owner) when missing. */
export async function ownPassword(dataDir: string): Promise<string> {
  const made = randomBytes(24).toString('base64url');
  await writeFile(passwordFile(dataDir), `${made}\n`, { flag: 'wx', mode: 0o600 }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
  return readPassword(dataDir);
}

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

/** Whether the server still lets a connection in without a password. */
async function trusts(url: string): Promise<boolean> {
  const withoutPassword = new URL(url);
  withoutPassword.password = '';
  const client = new pg.Client({ connectionString: withoutPassword.href });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A cluster made with trust authentication: set the password, then ask for it from now on. The
 * rules are written beside and renamed into place (never half a file, never through a link the
 * server's user planted), and the switch is awaited, since a reload is asynchronous.
 */
export async function requirePassword(
  cluster: string,
  url: string,
  password: string,
): Promise<void> {
  const hba = join(cluster, 'pg_hba.conf');
  const found = await lstat(hba);
  if (!found.isFile())
    throw new Error(
      `${hba} is not a plain file: the embedded PostgreSQL's rules cannot be trusted`,
    );
  const rules = await readFile(hba, 'utf8');
  if (!/^\s*(local|host)\s.*\strust\s*$/m.test(rules)) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`ALTER ROLE postgres PASSWORD ${client.escapeLiteral(password)}`);
    const aside = `${hba}.new`;
    await writeFile(
      aside,
      rules.replace(/^(\s*(?:local|host)\s.*\s)trust(\s*)$/gm, '$1scram-sha-256$2'),
      { mode: 0o600 },
    );
    await chown(aside, found.uid, found.gid);
    await rename(aside, hba);
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
  for (let waited = 0; await trusts(url); waited += 100) {
    if (waited >= 10_000)
      throw new Error('the embedded PostgreSQL did not start asking for its password within 10 s');
    await setTimeout(100);
  }
}
