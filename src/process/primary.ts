// WEB_CONCURRENCY > 1 (PostgreSQL only): the primary migrates once, then forks the workers, which
// share the listening port through node:cluster. A worker that dies unexpectedly is replaced; on
// SIGTERM/SIGINT the signal goes to every worker and the primary exits when they have.
import cluster from 'node:cluster';
import { openMigratedDatabase } from '../adapters/database/open.ts';
import type { Config } from '../config.ts';
import { createLogger } from '../logger.ts';

export async function runPrimary(config: Readonly<Config>, fail: (error: unknown) => never): Promise<void> {
  const logger = createLogger(config.logLevel);
  const { db, applied } = await openMigratedDatabase(config.database).catch(fail);
  await db.close();
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');

  let stopping = false;
  const fork = () => cluster.fork();
  for (let i = 0; i < config.webConcurrency; i++) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
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
