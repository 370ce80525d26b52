// The database an entry point works on, and the adapters built on it. The owner of the embedded
// database serves it and migrates; a cluster worker reaches its primary's and does not migrate
// (the primary has); an operator command reaches the running service's (or serves it for its
// length) and migrates.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createEventLedger } from '../adapters/database/event-ledger.ts';
import { createJobLeases } from '../adapters/database/job-leases.ts';
import {
  openDatabase,
  openMigratedDatabase,
  reachDatabase,
  serveDatabase,
  type DatabaseServer,
} from '../adapters/database/open.ts';
import { createRateLimitCounts } from '../adapters/database/rate-limit-counts.ts';
import type { Database } from '../adapters/database/sql-client.ts';
import { createStore, type OutboundEvents } from '../adapters/database/store.ts';

export interface OpenedDatabase {
  db: Database;
  /** The migrations this process applied (none for a cluster worker). */
  applied: string[];
  server: DatabaseServer;
}

export async function openDatabaseAs(
  config: Config,
  role: 'owner' | 'worker' | 'operator',
  logger: Pick<Logger, 'warn'>,
): Promise<OpenedDatabase> {
  const server = await (role === 'owner' ? serveDatabase : reachDatabase)(config.database);
  const warn = (message: string) => logger.warn(message);
  try {
    const opened =
      role === 'worker'
        ? { db: await openDatabase(server.reach, warn), applied: [] }
        : await openMigratedDatabase(server.reach, warn);
    return { ...opened, server };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Outbound events are recorded only where a destination is configured. */
export const outboundEvents = (config: Config): OutboundEvents =>
  config.appEvents.kind === 'off' ? 'dropped' : 'recorded';

export function databaseAdapters(db: Database, outbound: OutboundEvents) {
  return {
    store: createStore(db, outbound),
    ledger: createEventLedger(db, outbound),
    leases: createJobLeases(db),
    limitCounts: createRateLimitCounts(db),
  };
}

export type DatabaseAdapters = ReturnType<typeof databaseAdapters>;
