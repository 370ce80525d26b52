// Opens the configured database and brings its schema up to date.
import type { DatabaseConfig } from '../../config.ts';
import { migrate } from './migrate.ts';
import { openPostgres } from './postgres.ts';
import type { Database } from './sql-client.ts';

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.kind === 'postgres') return openPostgres(config.url, config.poolSize);
  // Loaded only when used: PGlite's module costs some 35 MB per process that PostgreSQL never needs.
  const { openPglite } = await import('./pglite.ts');
  return openPglite(config.dataDir);
}

export async function openMigratedDatabase(config: DatabaseConfig): Promise<{ db: Database; applied: string[] }> {
  const db = await openDatabase(config);
  try {
    return { db, applied: await migrate(db) };
  } catch (error) {
    await db.close();
    throw error;
  }
}
