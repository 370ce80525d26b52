// Node enforces the request timeout (the whole request, headers and body, within requestTimeout)
// with a periodic check that server.close() stops. A client that sent headers and part of a body,
// then nothing, would then hold the shutdown until the bound kills the process (exit 1). So the
// requests still being received when closing starts are given the same deadline here: whatever
// has not fully arrived by then is answered 408 and its connection closed, as Node would have.
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { answerClientError } from './client-errors.ts';

export function keepRequestDeadlineWhileClosing(app: FastifyInstance, requestTimeoutMs: number): void {
  // Requests whose body was still arriving, with when they arrived; a request leaves on 'close'.
  const receiving = new Map<IncomingMessage, number>();
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    // app.inject's requests have no real socket: nothing to time out.
    if (!raw.complete && raw.socket instanceof Socket) {
      receiving.set(raw, Date.now());
      raw.once('close', () => receiving.delete(raw));
    }
    done();
  });
  app.addHook('preClose', (done) => {
    for (const [raw, arrivedAt] of receiving) {
      setTimeout(() => {
        if (raw.complete) return;
        answerClientError(Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), raw.socket);
      }, Math.max(0, arrivedAt + requestTimeoutMs - Date.now())).unref();
    }
    done();
  });
}
