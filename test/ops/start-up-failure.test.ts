// A start-up that cannot reach DATABASE_URL says why on one line: the cause (connection refused),
// host and port, never the password.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { freePort } from '../../support/free-port.ts';

describe('start-up failure', () => {
  test('an unreachable DATABASE_URL: the cause, host and port on stderr, no password, exit 1', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        PAYMENTS_SIMULATOR_PORT: '0',
        DATABASE_URL: `postgres://billing:hunter2-secret@127.0.0.1:${port}/billing`,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    assert.equal(code, 1);
    assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
    assert.match(stderr, /^Start-up failed: database unavailable: .*ECONNREFUSED/);
    assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(stderr, /hunter2/);
  });
});
