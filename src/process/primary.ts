// WEB_CONCURRENCY > 1 (PostgreSQL, embedded or not): the primary owns and starts the embedded
// database, migrates once, then forks the workers, which share the listening port through
// node:cluster and reach the primary's database. A worker that dies unexpectedly is replaced; on
// SIGTERM/SIGINT the signal goes to every worker, and when they have exited the primary stops the
// embedded database and exits.
import cluster from 'node:cluster';
import { composeDatabaseOwner } from '../composition.ts';
import type { Config } from '../config.ts';

export async function runPrimary(
  config: Readonly<Config>,
  fail: (error: unknown) => never,
): Promise<void> {
  const database = await composeDatabaseOwner(config).catch(fail);
  const { logger, migrationsApplied } = database;
  if (migrationsApplied.length > 0)
    logger.info({ migrations: migrationsApplied }, 'database migrated');

  let stopping = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < config.webConcurrency; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0)
        void database.stop().then(() => process.exit(0), fail);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
