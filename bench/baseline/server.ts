// The benchmark's floor: the two hot paths with no framework, written the way a careful person
// writes them for speed with node:http, the `pg` pool (named statements) and jose, doing the
// minimum the contract requires and no less. Round trips and parsing as a bare server has them:
//
// GET /api/v1/users/me: bearer token -> jose jwtVerify against the issuer's JWKS (found through
//   discovery, cached by jose) with the service's checks (asymmetric algorithms only, iss, aud,
//   exp and sub required, 30 s tolerance, an e-mail claim) -> one indexed SELECT whose answer is
//   the response body, built by PostgreSQL (tier included); only when that finds nobody (or the
//   e-mail changed) one upsert returning the body. 1 round trip.
// POST /api/v1/webhooks/payments: Stripe signature over the raw bytes (any of the secrets, 300 s
//   tolerance, constant-time compare) -> JSON.parse once -> one indexed SELECT for a duplicate
//   (a redelivery ends there: 1 round trip) -> BEGIN, the effect (an UPDATE guarded in SQL by the
//   event's `created`), the record (INSERT ... ON CONFLICT DO NOTHING: the loser of a race finds
//   it, rolls back and answers `duplicate`), COMMIT: 5 round trips for a new event.
// Not here, because no scenario needs it: checkout, userinfo, the provider re-read of an unknown
// subscription (such an event is recorded and acknowledged without effect), 422 formatting.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import pg from 'pg';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`baseline: ${name} is required`);
  return value;
};

const issuer = env('IDP_ISSUER');
const audience = env('IDP_AUDIENCE');
const secrets = env('PAYMENTS_WEBHOOK_SECRET').split(',');
const priceTiers = env('BILLING_PRICES')
  .split(',')
  .map((pair) => pair.split('=') as [string, string]);
const prices = priceTiers.map(([, price]) => price);
const tiers = priceTiers.map(([tier]) => tier);
const MAX_BODY = 1024 * 1024;
const pool = new pg.Pool({
  connectionString: env('DATABASE_URL'),
  max: Number(env('POOL_SIZE', '10')),
});
pool.on('error', () => {});

const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
  jwks_uri: string;
};
const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
const verifyOptions = {
  issuer,
  audience,
  algorithms: [
    'RS256',
    'RS384',
    'RS512',
    'PS256',
    'PS384',
    'PS512',
    'ES256',
    'ES384',
    'ES512',
    'EdDSA',
  ],
  requiredClaims: ['exp', 'sub'],
  clockTolerance: 30,
};

// The profile as PostgreSQL renders it, with the service's tier rules: paid while active or
// trialing, or past_due within 7 days of the failure, unless a scheduled end has passed. $2 and $3
// are the sold prices and their tiers.
const SUBSCRIPTION = `LEFT JOIN LATERAL (
    SELECT status, price_id, payment_failed_at,
      LEAST(cancel_at, CASE WHEN cancel_at_period_end THEN current_period_end END) <= now() AS ended
    FROM subscriptions WHERE user_id = u.id
    ORDER BY status IN ('active', 'trialing', 'past_due') DESC, created_at DESC LIMIT 1
  ) s ON true`;
const BODY = `json_build_object('id', u.id, 'idp_id', u.idp_id, 'email', u.email,
    'tier', CASE WHEN (s.status IN ('active', 'trialing')
        OR (s.status = 'past_due' AND s.payment_failed_at > now() - interval '7 days'))
        AND s.ended IS NOT TRUE
      THEN COALESCE(($3::text[])[array_position($2::text[], s.price_id)], 'free') ELSE 'free' END,
    'created_at', to_char(u.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"'))::text`;
const SELECT_USER = {
  name: 'select_user',
  text: `SELECT u.email, ${BODY} AS body FROM users u ${SUBSCRIPTION} WHERE u.idp_id = $1`,
};
const UPSERT_USER = {
  name: 'upsert_user',
  text: `WITH u AS (
      INSERT INTO users (idp_id, email) VALUES ($1, $4)
      ON CONFLICT (idp_id) DO UPDATE SET email = EXCLUDED.email, updated_at = now() RETURNING *
    ) SELECT ${BODY} AS body FROM u ${SUBSCRIPTION}`,
};
const EVENT_SEEN = { name: 'event_seen', text: 'SELECT 1 FROM webhook_events WHERE id = $1' };
const EVENT_INSERT = {
  name: 'event_insert',
  text: `INSERT INTO webhook_events (id, type, livemode, outcome, event_created)
    VALUES ($1, $2, $3, $4, to_timestamp($5)) ON CONFLICT (id) DO NOTHING`,
};
const SUBSCRIPTION_UPDATE = {
  name: 'subscription_update',
  text: `UPDATE subscriptions SET status = $2, price_id = $3, cancel_at_period_end = $4,
      current_period_end = to_timestamp($5),
      payment_failed_at = CASE WHEN $2 = 'past_due' THEN COALESCE(payment_failed_at, to_timestamp($6)) END,
      as_of = $6, revision = revision + 1, updated_at = now()
    WHERE id = $1 AND as_of < $6`,
};

function send(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

const INVALID_TOKEN = '{"detail":"Invalid token"}';
const INVALID_CHALLENGE = { 'www-authenticate': 'Bearer error="invalid_token"' };

async function usersMe(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const header = request.headers.authorization;
  if (header === undefined || !/^bearer /i.test(header))
    return send(response, 401, '{"detail":"Not authenticated"}', { 'www-authenticate': 'Bearer' });
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(header.slice(7).trim(), jwks, verifyOptions));
  } catch {
    return send(response, 401, INVALID_TOKEN, INVALID_CHALLENGE);
  }
  const { sub, email } = payload;
  if (
    typeof sub !== 'string' ||
    sub === '' ||
    sub.length > 255 ||
    typeof email !== 'string' ||
    email === '' ||
    email.length > 320
  )
    return send(response, 401, INVALID_TOKEN, INVALID_CHALLENGE);
  const [row] = (
    await pool.query<{ email: string; body: string }>({
      ...SELECT_USER,
      values: [sub, prices, tiers],
    })
  ).rows;
  if (row !== undefined && row.email === email) return send(response, 200, row.body);
  const upserted = await pool.query<{ body: string }>({
    ...UPSERT_USER,
    values: [sub, prices, tiers, email],
  });
  send(response, 200, upserted.rows[0]!.body);
}

function signatureValid(body: Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  let timestamp = '';
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    const key = part.slice(0, i).trim();
    if (key === 't') timestamp = part.slice(i + 1).trim();
    else if (key === 'v1') candidates.push(part.slice(i + 1).trim());
  }
  if (!/^\d{1,12}$/.test(timestamp) || candidates.length === 0) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  return secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
    return candidates.some(
      (candidate) =>
        candidate.length === 64 && timingSafeEqual(expected, Buffer.from(candidate, 'hex')),
    );
  });
}

interface Event {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  data?: {
    object?: {
      id?: string;
      status?: string;
      cancel_at_period_end?: boolean;
      items?: { data?: { price?: { id?: string }; current_period_end?: number }[] };
    };
  };
}

const ANSWER = {
  processed: '{"status":"processed"}',
  duplicate: '{"status":"duplicate"}',
  ignored: '{"status":"ignored"}',
};

/** The guarded UPDATE a subscription event makes; null for any other event. */
function effectOf(event: Event): pg.QueryConfig | null {
  if (!event.type.startsWith('customer.subscription.')) return null;
  const s = event.data?.object ?? {};
  const item = s.items?.data?.[0];
  return {
    ...SUBSCRIPTION_UPDATE,
    values: [
      s.id ?? null,
      event.type === 'customer.subscription.deleted' ? 'canceled' : (s.status ?? null),
      item?.price?.id ?? null,
      s.cancel_at_period_end ?? false,
      item?.current_period_end ?? null,
      event.created,
    ],
  };
}

async function webhook(request: IncomingMessage, response: ServerResponse, body: Buffer) {
  const signature = request.headers['stripe-signature'];
  if (!signatureValid(body, Array.isArray(signature) ? signature.join(',') : signature))
    return send(response, 400, '{"detail":"Invalid webhook signature"}');
  let event: Event;
  try {
    event = JSON.parse(body as unknown as string) as Event;
    if (
      typeof event.id !== 'string' ||
      typeof event.type !== 'string' ||
      !Number.isInteger(event.created)
    )
      throw new Error('not an event');
  } catch {
    return send(response, 400, '{"detail":"Webhook body is not a payment event"}');
  }
  if (event.livemode !== false) return send(response, 200, ANSWER.ignored);
  const seen = await pool.query({ ...EVENT_SEEN, values: [event.id] });
  if (seen.rows.length > 0) return send(response, 200, ANSWER.duplicate);
  const effect = effectOf(event);
  const outcome = effect ? 'processed' : 'ignored';
  const client = await pool.connect();
  let inserted: number | null;
  try {
    await client.query('BEGIN');
    if (effect) await client.query(effect);
    inserted = (
      await client.query({
        ...EVENT_INSERT,
        values: [event.id, event.type, event.livemode, outcome, event.created],
      })
    ).rowCount;
    await client.query(inserted ? 'COMMIT' : 'ROLLBACK');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  send(response, 200, inserted ? ANSWER[outcome] : ANSWER.duplicate);
}

/** The body as it arrives, then the webhook; 413 past the limit. */
function receiveWebhook(request: IncomingMessage, response: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      if (size > MAX_BODY)
        return resolve(send(response, 413, '{"detail":"Request body too large"}'));
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      webhook(request, response, body).then(resolve, reject);
    });
  });
}

const server = createServer((request, response) => {
  const url = request.url ?? '';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const route =
    request.method === 'GET' && path === '/api/v1/users/me'
      ? usersMe
      : request.method === 'POST' && path === '/api/v1/webhooks/payments'
        ? receiveWebhook
        : request.method === 'GET' && path === '/healthz'
          ? async () => send(response, 200, '{"status":"ok"}')
          : async () => send(response, 404, '{"detail":"Not Found"}');
  route(request, response).catch(() => {
    if (!response.headersSent) send(response, 500, '{"detail":"Internal Server Error"}');
  });
});
server.keepAliveTimeout = 72_000;
server.listen(Number(env('PORT')), '127.0.0.1', () =>
  console.log(`baseline listening on http://127.0.0.1:${env('PORT')}`),
);

const stop = () => server.close(() => void pool.end().finally(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.on('disconnect', stop);
