// The floor beside the service: the reference bare server (node:http, pg, jose under node:cluster),
// which is not part of the project. BENCH_FLOOR names a copy of it with its dependencies installed;
// it runs as its README says it is measured (one worker, NODE_ENV=production, a pool of 10), in a
// database of its own on the bench's PostgreSQL, since its `users` table is not the service's.
// Its users are the service's seeded users as the service holds them when the floor starts (the
// same ids, subjects, e-mails and subscription states), so the same tokens and the same signed
// events find rows on both servers.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createDatabase } from './database.ts';
import {
  BILLING_PRICES,
  TIER_OF_PRICE,
  WEBHOOK_SECRET,
  serve,
  type Server,
  type Stack,
} from './stack.ts';
import { floorState } from './webhook-state.ts';

/** BENCH_FLOOR's server.mjs; throws, saying what is missing, where it cannot run. */
export function locateFloor(dir: string | undefined): string {
  const setUp = 'cp -r ../shared/floor /tmp/floor && (cd /tmp/floor && npm ci)';
  if (!dir) throw new Error(`the floor needs BENCH_FLOOR=<a copy of it>, made with: ${setUp}`);
  const entry = resolve(dir, 'server.mjs');
  if (!existsSync(entry)) throw new Error(`BENCH_FLOOR=${dir} holds no server.mjs`);
  if (!existsSync(join(dir, 'node_modules', 'pg')))
    throw new Error(`BENCH_FLOOR=${dir} has no dependencies installed: run npm ci there`);
  return entry;
}

/** The bench database's name with `_floor` after it, on the same server. */
function floorDatabaseName(benchUrl: string): string {
  return `${decodeURIComponent(new URL(benchUrl).pathname.slice(1))}_floor`;
}

/**
 * The service's seeded users with a subscription, copied into the floor's `users`. Done once the
 * floor answers: it has created its tables by then (before forking its worker), so its own schema
 * is the only one, and the copy names only the columns it fills.
 */
async function copyUsers(from: pg.Pool, to: pg.Pool): Promise<void> {
  const { rows } = await from.query<{ price_id: string; status: string }>(
    `SELECT u.id, u.idp_id, u.email, s.customer_id AS payments_customer_id, s.id AS subscription_id,
            s.status, s.price_id, to_timestamp(s.as_of) AS subscription_event_at
     FROM users u JOIN subscriptions s ON s.user_id = u.id WHERE u.idp_id ~ '^u[0-9]+$'`,
  );
  const users = rows.map(({ status, price_id, ...user }) => ({
    ...user,
    subscription_status: status,
    subscription_price_id: price_id,
    tier:
      status === 'active' || status === 'trialing'
        ? (TIER_OF_PRICE.get(price_id) ?? 'free')
        : 'free',
  }));
  const columns = `id, idp_id, email, tier, payments_customer_id, subscription_id,
    subscription_status, subscription_price_id, subscription_event_at`;
  await to.query(
    `INSERT INTO users (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::users, $1::json)`,
    [JSON.stringify(users)],
  );
  await to.query('ANALYZE users');
}

/** Starts the floor at `entry` in a new database beside the bench's, its users copied from `benchPool`. */
export async function startFloor(stack: Stack, entry: string, benchPool: pg.Pool): Promise<Server> {
  const database = await createDatabase(stack.databaseUrl, floorDatabaseName(stack.databaseUrl), {
    asynchronousCommit: true,
  });
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  let server: Server | undefined;
  const stop = async () => {
    await server?.stop();
    await pool.end();
    await database.drop();
  };
  try {
    server = await serve(stack, {
      name: 'floor',
      args: [entry],
      env: {
        NODE_ENV: 'production',
        DATABASE_URL: database.url,
        WEB_CONCURRENCY: '1',
        PG_POOL_MAX: '10',
        IDP_ISSUER: stack.issuer.url,
        IDP_AUDIENCE: stack.issuer.audience,
        PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET,
        BILLING_PRICES,
      },
      // No health route: its 404 means its worker listens.
      anyStatus: true,
    });
    await copyUsers(benchPool, pool);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...server, state: floorState(pool), stop };
}
