// npm run migrate: applies pending migrations to the configured database and exits.
import { openMigratedDatabase } from '../adapters/database/open.ts';
import { loadConfig } from '../config.ts';

try {
  const { db, applied } = await openMigratedDatabase(loadConfig().database);
  await db.close();
  console.log(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
