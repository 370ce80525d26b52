// The metrics listener refuses a request that announces a body (a scrape has none) with 413 and
// closes its connection at once: 20 connections announcing a megabyte and sending 3 bytes are all
// answered, and the process keeps none of them, well before the request deadline. The clients keep
// their own half open and go on sending, so a connection the process still held would stay up;
// one it has closed is reset by the next byte.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { onPostgres } from '../helpers/database.ts';
import { freshDataDir } from '../helpers/data-dir.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';
import { freePort } from '../../support/free-port.ts';

const CONNECTIONS = 20;
const DEADLINE_MS = 3_000;

describe(
  'the metrics listener closes a connection whose body it refused',
  { skip: onPostgres && 'runs once, in the PGlite half' },
  () => {
    let service: ServiceProcess;
    let port: number;
    const dataDir = freshDataDir('billing-metrics-body');
    before(async () => {
      port = await freePort();
      service = await startServiceProcess({
        NODE_ENV: 'test',
        DATABASE_URL: 'memory://',
        DATA_DIR: dataDir,
        PAYMENTS_SIMULATOR_PORT: '0',
        METRICS_PORT: String(port),
        HTTP_REQUEST_TIMEOUT_MS: String(DEADLINE_MS),
      });
    });
    after(async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    test(`${CONNECTIONS} connections announcing 1,000,000 bytes and sending 3: 413, closed at once`, async () => {
      const started = Date.now();
      // Half-open allowed, and sending on after the answer: as a client that does not give up.
      const sockets = Array.from({ length: CONNECTIONS }, () => {
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        let answer = '';
        socket
          .setEncoding('utf8')
          .on('data', (chunk: string) => (answer += chunk))
          .on('error', () => {});
        socket.write(
          'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\nabc',
        );
        const dripping = setInterval(() => socket.writable && socket.write('x'), 100);
        const closed = new Promise((resolve) => socket.once('close', resolve)).then(() => {
          clearInterval(dripping);
          return { answer, after: Date.now() - started };
        });
        return { socket, closed };
      });
      const timer = setTimeout(
        () => sockets.forEach(({ socket }) => socket.destroy()),
        3 * DEADLINE_MS,
      );
      const results = await Promise.all(sockets.map(({ closed }) => closed));
      clearTimeout(timer);
      for (const { answer, after } of results) {
        assert.match(answer, /^HTTP\/1\.1 413 /);
        assert.match(answer, /\r\nconnection: close\r\n/i);
        assert.ok(after < DEADLINE_MS, `closed ${after} ms after it was sent`);
      }
    });
  },
);
