// A client that sends its headers and part of a body, then nothing (slowloris), on a real socket to
// the real service process: it gets 408 in the contract's shape and the connection is closed once
// HTTP_REQUEST_TIMEOUT_MS has passed, and with such a connection open SIGTERM still ends in exit 0.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { databaseLabel } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

const REQUEST_TIMEOUT_MS = 2_000;

async function start(context: TestContext): Promise<ServiceProcess> {
  const dataDir = await mkdtemp(join(tmpdir(), 'billing-slow-client-'));
  const service = await startServiceProcess({ NODE_ENV: 'test', DATABASE_URL: 'memory://', DATA_DIR: dataDir, PAYMENTS_SIMULATOR_PORT: '0', HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
  context.after(async () => {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return service;
}

/** Opens a connection, sends the headers of a 1,000-byte webhook body and 10 bytes of it, then nothing. */
async function stallMidBody(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<unknown> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const closed = once(socket, 'close');
  socket.write(`POST /api/v1/webhooks/payments HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nStripe-Signature: t=1,v1=00\r\n\r\n{"id":"ev`);
  return { socket, received: () => text, closed };
}

describe(`a client that stops sending mid-body (${databaseLabel})`, () => {
  test('gets 408 {"detail": ...} and its connection closed after the request timeout', async (context) => {
    const service = await start(context);
    const started = Date.now();
    const stalled = await stallMidBody(service.url);
    const waited = await Promise.race([stalled.closed.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 4_000, 'still open'))]);
    stalled.socket.destroy();
    assert.equal(waited, 'closed');
    assert.ok(Date.now() - started >= REQUEST_TIMEOUT_MS - 100, 'not before the timeout');
    assert.match(stalled.received(), /^HTTP\/1\.1 408 /);
    assert.deepEqual(JSON.parse(stalled.received().split('\r\n\r\n')[1]!), { detail: 'Request timeout' });
  });

  test('with such a connection open, SIGTERM still ends the process with exit 0', async (context) => {
    const service = await start(context);
    const stalled = await stallMidBody(service.url);
    context.after(() => stalled.socket.destroy());
    service.child.kill('SIGTERM');
    const [code] = await once(service.child, 'exit');
    assert.equal(code, 0, service.output.slice(-3).join('\n'));
  });
});
