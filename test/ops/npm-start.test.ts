// `npm start` as a person runs it: npm, then the build, then the service. SIGTERM to the npm process
// (what a process manager sends) or SIGINT to its whole process group (Ctrl-C in a terminal: npm and
// the service both get it, and npm forwards it once more) must stop the service gracefully: exit 0,
// its port and the simulator's freed, DATA_DIR given up.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../../support/free-port.ts';
import { freshDataDir } from '../helpers/data-dir.ts';

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.once('connect', () => socket.destroy());
  });

/** Whether the process has ended (a zombie holds no port either), looking for up to `ms`. */
async function endedWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const state = await readFile(`/proc/${pid}/stat`, 'utf8').then(
      (stat) => /\) (\w)/.exec(stat)?.[1],
      () => 'gone',
    );
    if (state === 'gone' || state === 'Z') return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe(`npm start and signals (${onPostgres ? 'PostgreSQL' : 'embedded PostgreSQL'})`, () => {
  let database: TestDatabase;
  let dataDir: string;
  before(async () => {
    database = await createTestDatabase();
    dataDir = freshDataDir('billing-npm-start');
  });
  after(async () => {
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} to npm start: the service stops gracefully, exit 0, its ports freed`, async () => {
      const [port, simulatorPort] = [await freePort(), await freePort()];
      const env = {
        ...process.env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        PORT: String(port),
        PAYMENTS_SIMULATOR_PORT: String(simulatorPort),
        DATA_DIR: dataDir,
        DATABASE_URL: onPostgres ? database.url : '',
      };
      const npm = spawn('npm', ['start'], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
      }); // a process group of its own, as a terminal's job
      const lines: string[] = [];
      await new Promise<void>((resolve, reject) => {
        npm.once('exit', (code) =>
          reject(new Error(`npm start exited with ${code} before listening: ${lines.join('\n')}`)),
        );
        createInterface({ input: npm.stdout! }).on('line', (line) => {
          lines.push(line);
          if (line.includes('Server listening at')) resolve();
        });
      });
      assert.ok(await listening(port));

      if (signal === 'SIGTERM') npm.kill(signal);
      else process.kill(-npm.pid!, signal);
      const [code] = await once(npm, 'exit');
      assert.equal(code, 0, lines.slice(-5).join('\n'));
      assert.ok(
        lines.some((line) => line.includes('shutting down')),
        'the service itself got the signal',
      );
      // Once the service's own process has ended, nothing may still listen.
      const { pid } = JSON.parse(lines.find((line) => line.includes('Server listening at'))!) as {
        pid: number;
      };
      assert.ok(await endedWithin(pid, 10_000), `the service (pid ${pid}) runs on after npm`);
      assert.equal(await listening(port), false, `port ${port} still listening`);
      assert.equal(
        await listening(simulatorPort),
        false,
        `simulator port ${simulatorPort} still listening`,
      );
      assert.equal(existsSync(join(dataDir, 'owner.pid')), false, 'DATA_DIR given up');
    });
  }
});
