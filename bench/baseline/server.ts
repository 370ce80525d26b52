// The benchmark's floor: the same two hot paths with no framework, written the way a careful
// person writes them with node:http, the `pg` pool and jose, doing the minimum and no less.
//
// GET /api/v1/users/me: bearer token -> jose jwtVerify against the issuer's JWKS (found through
//   discovery, cached by jose) with the service's checks (asymmetric algorithms only, iss, aud,
//   exp and sub required, 30 s tolerance, an e-mail claim) -> one SELECT of the user with the
//   subscription deciding the tier; only when that finds nobody (or an e-mail changed) one upsert
//   with RETURNING -> JSON.
// POST /api/v1/webhooks/payments: Stripe signature over the raw bytes (any of the secrets, 300 s
//   tolerance, constant-time compare) -> one transaction: the event record inserted first
//   (ON CONFLICT DO NOTHING: a redelivery, or the loser of a race, finds it and answers
//   `duplicate`), then the effect, guarded in SQL by the event's `created`.
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
const tierByPrice = new Map(
  env('BILLING_PRICES')
    .split(',')
    .map((pair) => pair.split('=').reverse() as [string, string]),
);
const graceMs = 7 * 86_400_000;
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

interface UserRow {
  id: string;
  idp_id: string;
  email: string;
  created_at: Date;
  status: string | null;
  price_id: string | null;
  cancel_at_period_end: boolean | null;
  current_period_end: Date | null;
  payment_failed_at: Date | null;
}

const SUBSCRIPTION = `LEFT JOIN LATERAL (
    SELECT status, price_id, cancel_at_period_end, current_period_end, payment_failed_at FROM subscriptions
    WHERE user_id = u.id ORDER BY status IN ('active', 'trialing', 'past_due') DESC, created_at DESC LIMIT 1
  ) s ON true`;
const SELECT_USER = `SELECT u.id, u.idp_id, u.email, u.created_at, s.* FROM users u ${SUBSCRIPTION} WHERE u.idp_id = $1`;
const UPSERT_USER = `WITH u AS (
    INSERT INTO users (idp_id, email) VALUES ($1, $2)
    ON CONFLICT (idp_id) DO UPDATE SET email = EXCLUDED.email, updated_at = now() RETURNING *
  ) SELECT u.id, u.idp_id, u.email, u.created_at, s.* FROM u ${SUBSCRIPTION}`;

function tier(row: UserRow, now: number): string {
  const paid = (row.price_id !== null && tierByPrice.get(row.price_id)) || 'free';
  switch (row.status) {
    case 'active':
    case 'trialing':
      return row.cancel_at_period_end &&
        row.current_period_end !== null &&
        row.current_period_end.getTime() <= now
        ? 'free'
        : paid;
    case 'past_due':
      return now - (row.payment_failed_at?.getTime() ?? now) < graceMs ? paid : 'free';
    default:
      return 'free';
  }
}

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

const unauthorized = (response: ServerResponse, detail: string, challenge: string) =>
  send(response, 401, JSON.stringify({ detail }), { 'www-authenticate': challenge });

async function usersMe(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const header = request.headers.authorization;
  if (header === undefined || !/^bearer\b/i.test(header))
    return unauthorized(response, 'Not authenticated', 'Bearer');
  const token = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
  let payload: JWTPayload;
  try {
    if (token === undefined) throw new Error('malformed');
    ({ payload } = await jwtVerify(token, jwks, verifyOptions));
  } catch {
    return unauthorized(response, 'Invalid token', 'Bearer error="invalid_token"');
  }
  const { sub, email } = payload;
  if (
    typeof sub !== 'string' ||
    sub === '' ||
    sub.length > 255 ||
    typeof email !== 'string' ||
    email === '' ||
    email.length > 320
  ) {
    return unauthorized(response, 'Invalid token', 'Bearer error="invalid_token"');
  }
  let [row] = (await pool.query<UserRow>(SELECT_USER, [sub])).rows;
  if (row === undefined || row.email !== email)
    [row] = (await pool.query<UserRow>(UPSERT_USER, [sub, email])).rows;
  const user = row!;
  send(
    response,
    200,
    JSON.stringify({
      id: user.id,
      idp_id: user.idp_id,
      email: user.email,
      tier: tier(user, Date.now()),
      created_at: user.created_at.toISOString().replace('Z', '+00:00'),
    }),
  );
}

function signatureValid(body: Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  let timestamp = NaN;
  const candidates: Buffer[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.split('=', 2);
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(Buffer.from(value, 'hex'));
  }
  if (Number.isNaN(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300) return false;
  return secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
    return candidates.some((candidate) => timingSafeEqual(candidate, expected));
  });
}

interface StripeSubscription {
  id: string;
  status: string;
  cancel_at_period_end: boolean;
  items: { data: { price: { id: string }; current_period_end: number }[] };
}

async function webhook(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1024 * 1024) return send(response, 413, '{"detail":"Request body too large"}');
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const signature = request.headers['stripe-signature'];
  if (!signatureValid(body, Array.isArray(signature) ? signature.join(',') : signature))
    return send(response, 400, '{"detail":"Invalid webhook signature"}');
  let event: {
    id: string;
    type: string;
    created: number;
    livemode: boolean;
    data: { object: StripeSubscription };
  };
  try {
    event = JSON.parse(body.toString('utf8'));
    if (
      typeof event.id !== 'string' ||
      typeof event.type !== 'string' ||
      !Number.isInteger(event.created)
    )
      throw new Error('not an event');
  } catch {
    return send(response, 400, '{"detail":"Webhook body is not a payment event"}');
  }
  if (event.livemode !== false) return send(response, 200, '{"status":"ignored"}');
  const isSubscription = event.type.startsWith('customer.subscription.');
  const client = await pool.connect();
  let status: string;
  try {
    await client.query('BEGIN');
    const recorded = await client.query(
      'INSERT INTO webhook_events (id, type, livemode, outcome, event_created) VALUES ($1, $2, $3, $4, to_timestamp($5)) ON CONFLICT (id) DO NOTHING RETURNING 1',
      [
        event.id,
        event.type,
        event.livemode,
        isSubscription ? 'processed' : 'ignored',
        event.created,
      ],
    );
    if (recorded.rowCount === 0) {
      status = 'duplicate';
    } else {
      status = isSubscription ? 'processed' : 'ignored';
      if (isSubscription) {
        const s = event.data.object;
        const item = s.items.data[0];
        await client.query(
          `UPDATE subscriptions SET status = $2, price_id = $3, cancel_at_period_end = $4, current_period_end = to_timestamp($5),
             payment_failed_at = CASE WHEN $2 = 'past_due' THEN COALESCE(payment_failed_at, to_timestamp($6)) END,
             as_of = $6, revision = revision + 1, updated_at = now()
           WHERE id = $1 AND as_of < $6`,
          [
            s.id,
            s.status,
            item?.price.id ?? null,
            s.cancel_at_period_end,
            item?.current_period_end ?? null,
            event.created,
          ],
        );
      }
    }
    await client.query(status === 'duplicate' ? 'ROLLBACK' : 'COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  send(response, 200, JSON.stringify({ status }));
}

const server = createServer((request, response) => {
  const path = request.url?.split('?', 1)[0];
  const route =
    request.method === 'GET' && path === '/api/v1/users/me'
      ? usersMe
      : request.method === 'POST' && path === '/api/v1/webhooks/payments'
        ? webhook
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
