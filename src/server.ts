// The process: load config, compose, migrate, listen, and close gracefully on a signal.
import { buildApp } from './app.ts';
import { compose } from './composition.ts';
import { ConfigError, loadConfig } from './config.ts';

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

const composition = await compose(config).catch(fail);
const app = await buildApp(composition.services, { logger: composition.logger });

if (composition.migrationsApplied.length > 0) app.log.info({ migrations: composition.migrationsApplied }, 'database migrated');
const address = await app.listen({ host: config.host, port: config.port }).catch(fail);
composition.setServiceUrl(address);
app.log.info(`database: ${config.database.kind === 'postgres' ? 'PostgreSQL' : config.database.dataDir ?? 'embedded, in memory'}`);
if (config.identity.kind === 'dev') {
  app.log.info('development identity provider: get a token with  npm run token -- --sub alice --email alice@example.com');
}

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down');
  await app.close();
  await composition.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
