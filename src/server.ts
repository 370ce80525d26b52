// The process: load and check the configuration, then serve, in this process or, with
// WEB_CONCURRENCY > 1, in a cluster of workers.
import cluster from 'node:cluster';
import { ConfigError, loadConfig } from './config.ts';
import { runPrimary } from './process/primary.ts';
import { runWorker } from './process/worker.ts';

/** The error and its causes on one line ("database unavailable: connect ECONNREFUSED 10.0.0.5:5432"). */
function describeFailure(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error; cause instanceof Error && parts.length < 5; cause = cause.cause) {
    // A host with several addresses fails with an AggregateError whose own message is empty.
    const inner =
      cause instanceof AggregateError
        ? cause.errors.map((each: Error) => each.message).join('; ')
        : '';
    parts.push(inner || cause.message || ((cause as NodeJS.ErrnoException).code ?? cause.name));
  }
  return parts.join(': ').replace(/\s*\n\s*/g, ' ');
}

function fail(error: unknown): never {
  console.error(
    error instanceof ConfigError ? error.message : `Start-up failed: ${describeFailure(error)}`,
  );
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
