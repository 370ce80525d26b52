// PGlite's fresh cluster, kept once and loaded by later starts: kept in a directory only this user
// may enter; a damaged file is made afresh and replaced; a file someone else could have written
// is never loaded.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freshPglite } from '../../src/adapters/database/pglite-cluster.ts';
import { onPostgres } from '../helpers/database.ts';

describe(
  'the kept PGlite cluster',
  { skip: onPostgres && 'PGlite only: in the PGlite half' },
  () => {
    let root: string;
    const systemTmp = process.env.TMPDIR;
    const keptDir = () => join(root, `billing-pglite-${userInfo().uid}`);
    const keptFile = async () => join(keptDir(), (await readdir(keptDir()))[0]!);
    before(async () => {
      root = await mkdtemp(join(tmpdir(), 'pglite-kept-'));
      process.env.TMPDIR = root;
    });
    after(async () => {
      if (systemTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = systemTmp;
      await rm(root, { recursive: true, force: true });
    });
    const tables = async () => {
      const pg = await freshPglite();
      try {
        const { rows } = await pg.query<{ name: string }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
        );
        return rows.map((row) => row.name);
      } finally {
        await pg.close();
      }
    };

    test('the first start keeps the fresh cluster, only for this user; the next loads it', async () => {
      assert.deepEqual(await tables(), []);
      assert.equal((await stat(keptDir())).mode & 0o777, 0o700);
      assert.equal((await stat(await keptFile())).mode & 0o777, 0o600);
      assert.deepEqual(await tables(), []);
    });

    test('a damaged file: the cluster made afresh, the file replaced', async () => {
      const file = await keptFile();
      const size = (await stat(file)).size;
      await writeFile(file, 'not a cluster');
      assert.deepEqual(await tables(), []);
      assert.equal((await stat(file)).size, size);
    });

    test('a file others may write is never loaded; this user’s own is', async () => {
      const planted = await freshPglite();
      await planted.exec('CREATE TABLE planted (id int)');
      const files = Buffer.from(await (await planted.dumpDataDir('none')).arrayBuffer());
      await planted.close();
      const file = await keptFile();
      await writeFile(file, files);
      await chmod(file, 0o666);
      assert.deepEqual(await tables(), []);
      await writeFile(file, files);
      await chmod(file, 0o600);
      assert.deepEqual(await tables(), ['planted']);
    });
  },
);
