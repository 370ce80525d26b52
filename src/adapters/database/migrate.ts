// Applies the numbered files of migrations/ in order, each once, under an advisory lock so
// several instances starting together do not race. A failing migration throws: start-up stops.
import { readdir, readFile } from 'node:fs/promises';
import { projectPath } from '../project-root.ts';
import type { Database } from './sql-client.ts';

const MIGRATIONS_DIR = projectPath('migrations');
const MIGRATION_LOCK = 7_246_001;

async function listMigrations(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => /^\d+_.+\.sql$/.test(name)).sort();
}

export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = await listMigrations(dir);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).map(
        (r) => r.version,
      ),
    );
    const applied: string[] = [];
    for (const file of files.filter((name) => !done.has(name))) {
      try {
        await tx.exec(await readFile(`${dir}/${file}`, 'utf8'));
      } catch (error) {
        throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}

// The project's migrations ship with the code: listed once per process, not on every /readyz.
let projectMigrations: Promise<string[]> | null = null;

/** Readiness: the database answers and has every one of the project's migrations; throws otherwise. */
export async function checkMigrated(db: Database): Promise<void> {
  const files = await (projectMigrations ??= listMigrations(MIGRATIONS_DIR));
  const [row] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM schema_migrations WHERE version = ANY($1)',
    [files],
  );
  const pending = files.length - (row?.n ?? 0);
  if (pending > 0) throw new Error(`${pending} migration(s) not applied`);
}
