// Opens the configured database and brings its schema up to date. The embedded database is a
// server of its own: serveDatabase() makes this process the owner of DATA_DIR and starts it, and
// says how to reach it; reachDatabase() reaches the server of whoever owns DATA_DIR (the running
// service), serving it only when nobody does. PostgreSQL and PGlite in memory have nothing to start.
import type { DatabaseConfig, ReachableDatabaseConfig } from '../../config.ts';
import { claimDataDir, dataDirOwner } from './data-dir-owner.ts';
import { migrate } from './migrate.ts';
import { openPostgres } from './postgres.ts';
import type { StatementMode } from './statement-names.ts';
import type { Database } from './sql-client.ts';

export interface DatabaseServer {
  /** How this process reaches the database. */
  reach: ReachableDatabaseConfig;
  /** Stops what serveDatabase started (the embedded server) and gives up DATA_DIR. */
  stop(): Promise<void>;
}

/** The embedded server is reached directly, never through a pooler: its statements are named. */
const embeddedReach = (url: string, poolSize: number): ReachableDatabaseConfig => ({
  kind: 'postgres',
  url,
  poolSize,
  preparedStatements: true,
});

export async function serveDatabase(config: DatabaseConfig): Promise<DatabaseServer> {
  if (config.kind !== 'embedded') return { reach: config, stop: async () => {} };
  const ownership = await claimDataDir(config.dataDir);
  try {
    const { startEmbeddedPostgres } = await import('./embedded-postgres.ts');
    const server = await startEmbeddedPostgres(config.dataDir);
    return {
      reach: embeddedReach(server.url, config.poolSize),
      async stop() {
        await server.stop();
        await ownership.release();
      },
    };
  } catch (error) {
    await ownership.release();
    throw error;
  }
}

/**
 * For other processes on the same data (operator commands, cluster workers): the owner's embedded
 * server while there is an owner, else this process serves it. PGlite in memory is refused: it is
 * one process's own, so a write there would be lost with it.
 */
export async function reachDatabase(config: DatabaseConfig): Promise<DatabaseServer> {
  if (config.kind === 'pglite')
    throw new Error(
      'DATABASE_URL=memory:// is an in-memory database of one process: another process cannot reach it',
    );
  if (config.kind === 'embedded' && (await dataDirOwner(config.dataDir)) !== null) {
    const { embeddedPostgresUrl } = await import('./embedded-cluster.ts');
    return {
      reach: embeddedReach(await embeddedPostgresUrl(config.dataDir), config.poolSize),
      stop: async () => {},
    };
  }
  return serveDatabase(config);
}

const statementMode = (named: boolean | undefined): StatementMode =>
  named === undefined ? 'auto' : named ? 'named' : 'unnamed';

/** `warn` hears what the database adapter decided by itself (statements gone unnamed). */
export async function openDatabase(
  config: ReachableDatabaseConfig,
  warn?: (message: string) => void,
): Promise<Database> {
  if (config.kind === 'postgres')
    return openPostgres(config.url, {
      poolSize: config.poolSize,
      statements: statementMode(config.preparedStatements),
      warn,
    });
  // Loaded only when used: PGlite's module costs some 35 MB per process that PostgreSQL never needs.
  const { openPglite } = await import('./pglite.ts');
  return openPglite();
}

export async function openMigratedDatabase(
  config: ReachableDatabaseConfig,
  warn?: (message: string) => void,
): Promise<{ db: Database; applied: string[] }> {
  const db = await openDatabase(config, warn);
  try {
    return { db, applied: await migrate(db) };
  } catch (error) {
    await db.close();
    throw error;
  }
}
