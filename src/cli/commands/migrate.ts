// migrate: applies pending migrations to the configured database and exits (`npm start` does the
// same before it listens; this is for deployments that migrate as a separate step).
import { cliConfig, type Command } from '../command.ts';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: '',
  summary: 'apply pending database migrations and exit',
  help: 'Applies the pending files of migrations/ to DATABASE_URL (or the embedded database), each once,\nunder a lock, so it is safe while other instances start.',
  options: {},
  positionals: [],
  async run(_input, io) {
    const config = cliConfig();
    const { composeOperator } = await import('../../composition.ts');
    io.progress(
      `migrating ${config.database.kind === 'postgres' ? 'PostgreSQL' : 'the embedded database'}...`,
    );
    const { migrationsApplied: applied, close } = await composeOperator(config);
    await close();
    io.out(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`);
  },
};
