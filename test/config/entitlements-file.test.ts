// BILLING_ENTITLEMENTS_FILE is read bounded: a regular file only (a device, a FIFO or a directory
// named by mistake is refused at once, in one line naming the variable, without reading), never
// more than 1 MiB and a byte; and a key given twice in one object (JSON.parse would keep the last
// silently) is refused naming its JSON path. The device and the FIFO run the real server, since
// reading them unbounded would hold the test's own process.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { nodeArgs } from '../helpers/entry.ts';

const STRIPE = {
  DATA_DIR: '/tmp/billing-data',
  PAYMENTS_API_KEY: 'sk_test_abc123',
  PAYMENTS_WEBHOOK_SECRET: 'whsec_abc123',
  BILLING_PRICES: 'pro=price_123,team=price_456',
};

const dir = mkdtempSync(join(tmpdir(), 'entitlements-file-'));

function refusal(file: string): string {
  try {
    loadConfig({ ...STRIPE, BILLING_ENTITLEMENTS_FILE: file });
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

/** The server started on `file`: its exit code and stderr, or a failure if it still runs after 20 s. */
async function serverRefusal(file: string): Promise<string[]> {
  const child = spawn(process.execPath, nodeArgs('server'), {
    env: { PATH: process.env.PATH, ...STRIPE, BILLING_ENTITLEMENTS_FILE: file },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  assert.equal(signal, null, 'still reading after 20 s');
  assert.notEqual(code, 0);
  return stderr.trimEnd().split('\n');
}

describe('configuration: the entitlements file read bounded', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('/dev/zero is refused without being read', async () => {
    assert.deepEqual(await serverRefusal('/dev/zero'), [
      'Invalid configuration: BILLING_ENTITLEMENTS_FILE is not a regular file (a character device): "/dev/zero"',
    ]);
  });

  test('a FIFO is refused without waiting for a writer', async () => {
    const fifo = join(dir, 'entitlements.fifo');
    execFileSync('mkfifo', [fifo]);
    assert.deepEqual(await serverRefusal(fifo), [
      `Invalid configuration: BILLING_ENTITLEMENTS_FILE is not a regular file (a FIFO): ${JSON.stringify(fifo)}`,
    ]);
  });

  test('a directory is refused', () => {
    assert.equal(
      refusal(dir),
      `Invalid configuration: BILLING_ENTITLEMENTS_FILE is not a regular file (a directory): ${JSON.stringify(dir)}`,
    );
  });

  test('1 MiB is read, one byte more is refused', () => {
    const exactly = join(dir, 'exactly.json');
    const padding = ' '.repeat(1024 * 1024 - '{}'.length);
    writeFileSync(exactly, `{}${padding}`);
    assert.deepEqual(
      [...loadConfig({ ...STRIPE, BILLING_ENTITLEMENTS_FILE: exactly }).entitlements.keys()],
      [],
    );
    const over = join(dir, 'over.json');
    writeFileSync(over, `{}${padding} `);
    assert.equal(
      refusal(over),
      `Invalid configuration: BILLING_ENTITLEMENTS_FILE is over 1048576 bytes: ${JSON.stringify(over)}`,
    );
  });

  test('a key given twice in one object is refused, naming its path', () => {
    const cases: [string, string][] = [
      ['{"pro": {}, "pro": {"features": ["x"]}}', '$.pro is given twice'],
      [
        '{"pro": {"limits": {"seats": 1, "projects": 2, "seats": 3}}}',
        '$.pro.limits.seats is given twice',
      ],
      ['{"pro": {"features": ["a"], "features": []}}', '$.pro.features is given twice'],
      ['{"pro": {"limits": {"a\\u0062": 1, "ab": 2}}}', '$.pro.limits.ab is given twice'],
    ];
    for (const [content, message] of cases) {
      const path = join(dir, 'twice.json');
      writeFileSync(path, content);
      assert.equal(refusal(path), `Invalid configuration: BILLING_ENTITLEMENTS_FILE ${message}`);
    }
  });

  test('equal keys in different objects, and keys that only look alike, are no duplicates', () => {
    const path = join(dir, 'alike.json');
    writeFileSync(
      path,
      '{"pro": {"features": ["pro", "limits"], "limits": {"pro": 1}}, "team": {"limits": {"pro": 2, "Pro": 3}}}',
    );
    assert.ok(refusal(path).includes('$.team.limits.Pro is not a valid limit name'));
  });
});
