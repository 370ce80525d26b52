// Clients that send part of a request, then nothing (slowloris), on real sockets to the real
// service process. Without a shutdown, one stalled mid-body gets 408 in the contract's shape once
// HTTP_REQUEST_TIMEOUT_MS has passed. With SIGTERM, Node's own deadline check stops (server.close()
// ends it): every stalled request, mid-headers, mid-body, or the second of a keep-alive
// connection, still gets its 408 no later than its deadline, and the process exits 0 within the
// documented bound (that requests in flight are answered is ops/shutdown's). On PGlite and on the embedded
// PostgreSQL (first half), and on PostgreSQL (second half): the close path differs for each.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { freshDataDir } from '../helpers/data-dir.ts';
import { createTestDatabase, onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

const REQUEST_TIMEOUT_MS = 2_000;
// The shutdown bound the README documents: HTTP_REQUEST_TIMEOUT_MS + 5 s, at least 10 s.
const SHUTDOWN_BOUND_MS = Math.max(10_000, REQUEST_TIMEOUT_MS + 5_000);
// Node checks deadlines every second, the shutdown path every half second; a loaded machine adds some.
const LATE_BY_AT_MOST_MS = 1_500;

const DATABASES: [label: string, url: () => Promise<{ url: string; drop(): Promise<void> }>][] =
  onPostgres
    ? [['PostgreSQL', createTestDatabase]]
    : [
        ['PGlite', async () => ({ url: 'memory://', drop: async () => {} })],
        ['embedded PostgreSQL', async () => ({ url: '', drop: async () => {} })],
      ];

async function start(
  context: TestContext,
  databaseUrl: () => Promise<{ url: string; drop(): Promise<void> }>,
): Promise<ServiceProcess> {
  const dataDir = freshDataDir('billing-slow-client');
  const database = await databaseUrl();
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PAYMENTS_SIMULATOR_PORT: '0',
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  };
  const service = await startServiceProcess(env);
  context.after(async () => {
    await service.stop();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return service;
}

interface Stalled {
  socket: Socket;
  /** When the request began arriving: its deadline runs from here. */
  sentAt: number;
  received: () => string;
  /** Resolves with the time the connection was closed. */
  closed: Promise<number>;
}

const WEBHOOK_HEAD = (host: string) =>
  `POST /api/v1/webhooks/payments HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nStripe-Signature: t=1,v1=00\r\n\r\n`;

/** Opens a connection and sends `parts` in order (a part that is a number waits that many ms), then nothing. */
async function stall(url: string, parts: (string | number)[]): Promise<Stalled> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  const closed = once(socket, 'close').then(() => Date.now());
  let sentAt = Date.now();
  for (const part of parts) {
    if (typeof part === 'number') {
      await new Promise((resolve) => setTimeout(resolve, part));
      sentAt = Date.now();
    } else socket.write(part);
  }
  return { socket, sentAt, received: () => text, closed };
}

const midHeaders = (url: string) => stall(url, [WEBHOOK_HEAD(new URL(url).host).slice(0, 40)]);
const midBody = (url: string) => stall(url, [`${WEBHOOK_HEAD(new URL(url).host)}{"id":`]);
// A first request answered, the connection kept alive and idle for longer than the deadline,
// then a second request that stalls: its deadline runs from when it began, not from the first.
const KEPT_IDLE_MS = REQUEST_TIMEOUT_MS + 500;
const secondOnKeepAlive = (url: string) =>
  stall(url, [
    `GET /healthz HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`,
    KEPT_IDLE_MS,
    `${WEBHOOK_HEAD(new URL(url).host)}{"id":`,
  ]);

function assertTimedOut(stalled: Stalled, name: string): void {
  const responses = stalled.received().split('HTTP/1.1 ').slice(1);
  const last = responses.at(-1) ?? '';
  assert.match(last, /^408 /, `${name}: ${JSON.stringify(stalled.received())}`);
  assert.deepEqual(JSON.parse(last.split('\r\n\r\n')[1]!), { detail: 'Request timeout' }, name);
}

describe('a client that stops sending mid-body', () => {
  test(`gets 408 {"detail": ...} and its connection closed after the request timeout (${DATABASES[0]![0]})`, async (context) => {
    const service = await start(context, DATABASES[0]![1]);
    const stalled = await midBody(service.url);
    const waited = await Promise.race([
      stalled.closed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 4_000, 'still open')),
    ]);
    stalled.socket.destroy();
    assert.equal(waited, 'closed');
    assert.ok(
      (await stalled.closed) - stalled.sentAt >= REQUEST_TIMEOUT_MS - 100,
      'not before the timeout',
    );
    assertTimedOut(stalled, 'mid-body');
  });
});

for (const [label, databaseUrl] of DATABASES) {
  describe(`SIGTERM with stalled clients (${label})`, () => {
    test('each stalled request gets its 408 at its deadline, not before, and the process exits 0 within the bound', async (context) => {
      const service = await start(context, databaseUrl);
      const keptAlive = secondOnKeepAlive(service.url);
      await new Promise((resolve) => setTimeout(resolve, KEPT_IDLE_MS - 100)); // all three stall together
      const stalls = {
        'mid-headers': await midHeaders(service.url),
        'mid-body': await midBody(service.url),
        'second on a keep-alive connection': await keptAlive,
      };
      context.after(() => Object.values(stalls).forEach((stalled) => stalled.socket.destroy()));
      const exited = once(service.child, 'exit');
      const signalledAt = Date.now();
      service.child.kill('SIGTERM');

      for (const [name, stalled] of Object.entries(stalls)) {
        const closedAt = await stalled.closed;
        assertTimedOut(stalled, name);
        assert.ok(
          closedAt - stalled.sentAt >= REQUEST_TIMEOUT_MS - 100,
          `${name}: closed ${closedAt - stalled.sentAt} ms after it began, before its deadline`,
        );
        assert.ok(
          closedAt - stalled.sentAt <= REQUEST_TIMEOUT_MS + LATE_BY_AT_MOST_MS,
          `${name}: closed ${closedAt - stalled.sentAt} ms after it began, the deadline is ${REQUEST_TIMEOUT_MS} ms`,
        );
      }
      const [code] = await exited;
      assert.equal(code, 0, service.output.slice(-3).join('\n'));
      assert.ok(
        Date.now() - signalledAt <= SHUTDOWN_BOUND_MS,
        `exited ${Date.now() - signalledAt} ms after SIGTERM`,
      );
    });
  });
}
