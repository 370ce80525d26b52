// Where S2 and S3 check what a server did with the events it acknowledged: the events recorded
// and the subscription state they left. The service and the baseline share the bench database and
// the service's schema; the floor (floor.ts) keeps both in a database of its own, a subscription's
// state on its user's row. Both record events in a `webhook_events` keyed by the event id.
import type pg from 'pg';

export interface WebhookState {
  /** The ids among `ids` recorded in webhook_events. */
  recorded(ids: readonly string[]): Promise<string[]>;
  /** Each subscription's as_of, by id: the `created` of the newest event applied to it. */
  asOf(subscriptionIds: readonly string[]): Promise<Map<string, number>>;
  /** The events recorded and every subscription's state, as one string that changes if any of it does. */
  snapshot(): Promise<string>;
}

/** `asOf` answers rows (id, as_of) for the ids in $1; `snapshot` one row. */
function stateIn(pool: pg.Pool, sql: { asOf: string; snapshot: string }): WebhookState {
  return {
    async recorded(ids) {
      const { rows } = await pool.query<{ id: string }>(
        'SELECT id FROM webhook_events WHERE id = ANY($1::text[])',
        [ids],
      );
      return rows.map((row) => row.id);
    },
    async asOf(subscriptionIds) {
      const { rows } = await pool.query<{ id: string; as_of: string }>(sql.asOf, [subscriptionIds]);
      return new Map(rows.map((row) => [row.id, Number(row.as_of)]));
    },
    async snapshot() {
      return JSON.stringify((await pool.query(sql.snapshot)).rows[0]);
    },
  };
}

export const serviceState = (pool: pg.Pool): WebhookState =>
  stateIn(pool, {
    asOf: 'SELECT id, as_of FROM subscriptions WHERE id = ANY($1::text[])',
    snapshot: `SELECT (SELECT count(*)::int FROM webhook_events) AS events,
      (SELECT md5(string_agg(id || status || coalesce(price_id, '') || as_of, ',' ORDER BY id)) FROM subscriptions) AS state`,
  });

/** The floor's schema: the subscription on its user's row, its as_of the event's `created` as a timestamp. */
export const floorState = (pool: pg.Pool): WebhookState =>
  stateIn(pool, {
    asOf: `SELECT subscription_id AS id, coalesce(extract(epoch FROM subscription_event_at), 0)::bigint AS as_of
      FROM users WHERE subscription_id = ANY($1::text[])`,
    snapshot: `SELECT (SELECT count(*)::int FROM webhook_events) AS events,
      (SELECT md5(string_agg(id || tier || coalesce(subscription_id, '') || coalesce(subscription_status, '')
        || coalesce(subscription_price_id, '') || coalesce(subscription_event_at::text, ''), ',' ORDER BY id)) FROM users) AS state`,
  });
