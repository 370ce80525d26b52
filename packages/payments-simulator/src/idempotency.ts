// Idempotency-Key on POST, as Stripe honours it: the first request with a key runs and its
// successful answer is kept for 24 hours; a retry with the same key, endpoint and parameters gets
// that answer again (`Idempotent-Replayed: true`) and changes nothing; the same key with other
// parameters or another endpoint is a 400 idempotency_error; while the first is still running a
// retry gets 409 with `Stripe-Should-Retry: true` (the SDK waits and retries). Failed requests are
// not kept, so they can be retried with the same key.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SqlClient } from './sql-client.ts';
import { StripeApiError, invalidParam } from './errors.ts';

const KEEP_MS = 24 * 3_600_000;
const ABANDONED_MS = 60_000;

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

const idempotencyError = (status: number, message: string, headers?: Record<string, string>) =>
  new StripeApiError(status, message, { type: 'idempotency_error', headers });

interface KeyedRequest {
  key: string;
  method: string;
  path: string;
  /** A hash of the parameters. */
  fingerprint: string;
}

interface KeptRequest {
  method: string;
  path: string;
  fingerprint: string;
  state: string;
  status: number;
  body: string;
  request_id: string;
}

/** Takes the key for this request; false when another request holds it (running or done). */
async function claimKey(db: SqlClient, request: KeyedRequest, requestId: string): Promise<boolean> {
  const now = Date.now();
  await db.query(
    "DELETE FROM sim_idempotency WHERE key = $1 AND (created_at < $2 OR (state = 'in_progress' AND created_at < $3))",
    [request.key, now - KEEP_MS, now - ABANDONED_MS],
  );
  const inserted = await db.query(
    "INSERT INTO sim_idempotency (key, method, path, fingerprint, state, request_id, created_at) VALUES ($1, $2, $3, $4, 'in_progress', $5, $6) ON CONFLICT (key) DO NOTHING RETURNING key",
    [request.key, request.method, request.path, request.fingerprint, requestId, now],
  );
  return inserted.length === 1;
}

/** The answer kept for the key, to replay; refused when it was another request or is not done. */
async function keptAnswer(db: SqlClient, request: KeyedRequest): Promise<KeptRequest> {
  const { key, method, path } = request;
  const [row] = await db.query<KeptRequest>(
    'SELECT method, path, fingerprint, state, status, body, request_id FROM sim_idempotency WHERE key = $1',
    [key],
  );
  const retryLater = `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`;
  if (!row) throw idempotencyError(409, retryLater, { 'stripe-should-retry': 'true' });
  if (row.method !== method || row.path !== path) {
    throw idempotencyError(
      400,
      `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${row.method} ${row.path}' vs '${method} ${path}'). Try using a key other than '${key}' if you meant to execute a different request.`,
    );
  }
  if (row.fingerprint !== request.fingerprint) {
    throw idempotencyError(
      400,
      `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    );
  }
  if (row.state !== 'done')
    throw idempotencyError(409, retryLater, { 'stripe-should-retry': 'true' });
  return row;
}

export function registerIdempotency(app: FastifyInstance, db: SqlClient): void {
  const claimed = new WeakMap<FastifyRequest, string>();

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.method !== 'POST' || typeof key !== 'string' || key === '') return;
    if (key.length > 255)
      throw invalidParam('Idempotency-Key must be at most 255 characters long.');
    const keyed: KeyedRequest = {
      key,
      method: request.method,
      path: request.url.split('?')[0]!,
      fingerprint: createHash('sha256')
        .update(canonical(request.body ?? {}))
        .digest('hex'),
    };
    const mine = await claimKey(db, keyed, request.id);
    reply.header('idempotency-key', key);
    if (mine) {
      claimed.set(request, key);
      return;
    }
    const kept = await keptAnswer(db, keyed);
    reply.header('idempotent-replayed', 'true').header('original-request', kept.request_id);
    return reply.status(kept.status).type('application/json').send(kept.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = claimed.get(request);
    if (key === undefined) return payload;
    claimed.delete(request);
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      await db.query(
        "UPDATE sim_idempotency SET state = 'done', status = $2, body = $3 WHERE key = $1",
        [key, reply.statusCode, payload],
      );
    } else {
      await db.query("DELETE FROM sim_idempotency WHERE key = $1 AND state = 'in_progress'", [key]);
    }
    return payload;
  });
}
