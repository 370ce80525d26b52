// The access log: one info line per request, written when it is answered, carrying the request
// id, method, url, status and duration; the arrival is logged only at debug.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { createFastify } from '../../src/http/fastify.ts';

type Line = {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  res?: { statusCode?: number };
  responseTime?: unknown;
};

async function logOf(
  level: string,
  request: { url: string; headers?: Record<string, string> },
): Promise<Line[]> {
  const lines: Line[] = [];
  const app = createFastify({
    logger: pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) }),
  });
  app.get('/things/:id', async (req, reply) =>
    reply.code(201).send({ id: (req.params as { id: string }).id }),
  );
  await app.inject({ method: 'GET', ...request });
  await app.close();
  return lines.filter((line) => line.reqId !== undefined);
}

describe('access log', () => {
  test('at info: one line per request, when answered, with id, method, url, status and duration', async () => {
    const lines = await logOf('info', {
      url: '/things/7?view=full',
      headers: { 'x-request-id': 'trace-42' },
    });
    assert.equal(lines.length, 1, JSON.stringify(lines));
    const [line] = lines;
    assert.equal(line!.msg, 'request completed');
    assert.equal(line!.level, 30);
    assert.equal(line!.reqId, 'trace-42');
    assert.equal(line!.method, 'GET');
    assert.equal(line!.url, '/things/7?view=full');
    assert.equal(line!.res?.statusCode, 201);
    assert.equal(typeof line!.responseTime, 'number');
  });

  test('at debug: the arrival too, before the answer', async () => {
    const lines = await logOf('debug', { url: '/things/8' });
    assert.deepEqual(
      lines.map((line) => [line.msg, line.level]),
      [
        ['incoming request', 20],
        ['request completed', 30],
      ],
    );
  });
});
