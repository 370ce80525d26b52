// Node checks the request deadline (requestTimeout, headersTimeout) periodically, and
// server.close() stops that check: a client that sent part of a request, then nothing, would hold
// the shutdown until its bound kills the process. So once closing starts the check runs here, as
// Node's would: a request still arriving past its deadline gets 408, an idle connection is closed.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { answerClientError } from './client-errors.ts';

interface Connection {
  /** When its current request began arriving; null while idle between requests. */
  since: number | null;
  /** The request being received or answered; null between requests. */
  request: IncomingMessage | null;
  /** Bytes read when it went idle: more since means a request has begun arriving. */
  readWhenIdle: number;
}

const CHECK_INTERVAL_MS = 500;
const timedOut = () =>
  Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });

export function keepRequestDeadlineWhileClosing(
  app: FastifyInstance,
  requestTimeoutMs: number,
): void {
  const connections = new Map<Socket, Connection>();
  app.server.on('connection', (socket: Socket) => {
    connections.set(socket, { since: Date.now(), request: null, readWhenIdle: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  app.server.on('request', (request: IncomingMessage, response) => {
    const connection = connections.get(request.socket);
    if (connection === undefined) return; // app.inject's requests have no real connection
    connection.request = request;
    connection.since ??= Date.now(); // a kept-alive connection's next request begins now
    response.once('finish', () =>
      Object.assign(connection, {
        since: null,
        request: null,
        readWhenIdle: request.socket.bytesRead,
      }),
    );
  });

  const expire = () => {
    const now = Date.now();
    for (const [socket, connection] of connections) {
      const { since, request, readWhenIdle } = connection;
      if (request?.complete) continue; // arrived: its answer is on its way
      if (since === null) {
        if (socket.bytesRead === readWhenIdle)
          socket.destroy(); // idle between requests
        else connection.since = now; // its next request has begun arriving: its deadline runs from here
      } else if (now - since >= requestTimeoutMs) answerClientError(timedOut(), socket);
    }
  };
  app.addHook('preClose', (done) => {
    const check = setInterval(expire, CHECK_INTERVAL_MS).unref();
    app.server.once('close', () => clearInterval(check));
    done();
  });
}
