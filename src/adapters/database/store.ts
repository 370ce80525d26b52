// Binds the repositories to a database, and to a transaction when one is asked for.
import type { Repositories, Store } from '../../domain/ports.ts';
import type { Database, SqlClient } from './sql-client.ts';
import { usersRepository } from './repositories/users.ts';

function repositories(db: SqlClient): Repositories {
  return { users: usersRepository(db) };
}

export function createStore(db: Database): Store {
  return {
    ...repositories(db),
    transaction: (work) => db.transaction((tx) => work(repositories(tx))),
    async ping() {
      await db.query('SELECT 1');
    },
  };
}
