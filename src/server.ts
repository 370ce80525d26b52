// The process: load and check the configuration, then serve, in this process or, with
// WEB_CONCURRENCY > 1, in a cluster of workers.
import cluster from 'node:cluster';
import { ConfigError, loadConfig } from './config.ts';
import { runPrimary } from './process/primary.ts';
import { runWorker } from './process/worker.ts';

function fail(error: unknown): never {
  console.error(error instanceof ConfigError ? error.message : `Start-up failed: ${(error as Error).message}`);
  process.exit(1);
}

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    return fail(error);
  }
})();

if (config.webConcurrency > 1 && cluster.isPrimary) await runPrimary(config, fail);
else await runWorker(config, fail);
