// Credits (contract section 14, "Speed"): the application's backend spending, POST
// /api/v1/credits/spend with a service token, 100 subjects in rotation, each request a new
// idempotency key (the load generator makes it as it sends: wrk-requests.lua), one credit each.
// The subjects are seeded as the bench seeds its other users, straight into the database: users as
// a backend's first spend creates them (no e-mail), each with purchased credits for any run. Checked
// in the database: every spend answered is recorded once and the balances went down by exactly the
// spends recorded; no provider call. The floor has no spend: run.ts sets the spends beside the
// floor's S1 (reading a row and writing one is a spend's work), in the same interleaved rounds.
import { DEV_SERVICE_CLIENT } from '../../src/config/defaults.ts';
import type { OidcTestIssuer } from '../../support/oidc-issuer.ts';
import type { Traffic } from './load.ts';
import { addCalls, describeCalls } from './provider-calls.ts';
import { steady, type BenchContext, type Scenario } from './scenarios.ts';
import type { Server } from './stack.ts';

export const CREDIT_SUBJECTS = 100;
/** Purchased credits each subject starts with: far more than any run spends. */
const PURCHASED = 1_000_000_000_000;
/** Replaced by a key of its own in every request (load.ts, wrk-requests.lua). */
const KEY_MARK = '@KEY@';
const subjectOf = (i: number) => `credits-${i}`;
const spendBody = (i: number, key: string) =>
  JSON.stringify({
    subject: { type: 'user', idp_id: subjectOf(i) },
    amount: 1,
    idempotency_key: key,
  });

/** The backend's token as `npm run token -- --service` mints it: the credits scope, the development client, no e-mail. */
export const serviceToken = (issuer: OidcTestIssuer) =>
  issuer.token('bench-backend', {
    email: null,
    // BILLING_CREDITS_SCOPE's default.
    extra: { scope: 'billing:credits', client_id: DEV_SERVICE_CLIENT, gty: 'client-credentials' },
  });

/** The bench's subjects' balance rows, joined to their users. */
const OF_SUBJECTS = `JOIN users u ON u.id = x.subject_id AND x.subject_type = 'user' AND u.idp_id LIKE 'credits-%'`;

async function seedSubjects(ctx: BenchContext): Promise<void> {
  await ctx.pool.query(
    `INSERT INTO users (idp_id, email) SELECT 'credits-' || i, '' FROM generate_series(0, $1 - 1) AS i
     ON CONFLICT (idp_id) DO NOTHING`,
    [CREDIT_SUBJECTS],
  );
  await ctx.pool.query(
    `INSERT INTO credit_balances (subject_type, subject_id, purchased)
     SELECT 'user', id, $1 FROM users WHERE idp_id LIKE 'credits-%'
     ON CONFLICT (subject_type, subject_id) DO UPDATE SET purchased = EXCLUDED.purchased`,
    [PURCHASED],
  );
}

/** What the database holds: spend entries, answers stored as 200, and spends the balances do not account for. */
async function ledger(ctx: BenchContext) {
  const { rows } = await ctx.pool.query<{ spends: number; answered: number; unaccounted: string }>(
    `SELECT (SELECT count(*) FROM credit_entries x ${OF_SUBJECTS} WHERE kind = 'spend')::int AS spends,
            (SELECT count(*) FROM credit_spends x ${OF_SUBJECTS} WHERE status = 200)::int AS answered,
            ($1::bigint * $2 + (SELECT coalesce(sum(amount), 0) FROM credit_entries x ${OF_SUBJECTS} WHERE kind <> 'spend')
              - (SELECT sum(grant_remaining + purchased) FROM credit_balances x ${OF_SUBJECTS})
              - (SELECT count(*) FROM credit_entries x ${OF_SUBJECTS} WHERE kind = 'spend'))::text AS unaccounted`,
    [PURCHASED, CREDIT_SUBJECTS],
  );
  return { ...rows[0]!, unaccounted: Number(rows[0]!.unaccounted) };
}

/** One spend per subject, 32 at a time (each subject answers before the load starts); the answers other than 200. */
async function firstSpends(server: Server, token: string): Promise<number> {
  let failures = 0;
  for (let i = 0; i < CREDIT_SUBJECTS; i += 32) {
    const subjects = Array.from({ length: Math.min(32, CREDIT_SUBJECTS - i) }, (_, j) => i + j);
    await Promise.all(
      subjects.map(async (s) => {
        const response = await fetch(`${server.url}/api/v1/credits/spend`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: spendBody(s, `bench-first-${Date.now()}-${s}`),
        });
        if (response.status !== 200) failures++;
        await response.arrayBuffer();
      }),
    );
  }
  return failures;
}

/** Spends at `connections` (the bench's 32), the subjects in rotation, every answer expected 200. */
export function creditSpends(ctx: BenchContext, token: string): Scenario {
  const failures = new Map<string, number>();
  const traffic = (): Traffic => {
    let next = 0;
    return {
      method: 'POST',
      path: '/api/v1/credits/spend',
      headers: { 'content-type': 'application/json' },
      next: () => ({
        header: ['authorization', `Bearer ${token}`],
        body: spendBody(next++ % CREDIT_SUBJECTS, KEY_MARK),
      }),
      distinct: CREDIT_SUBJECTS,
      unique: KEY_MARK,
    };
  };
  return steady(ctx, ctx.settings.connections, traffic, {
    prepare: async (server) => {
      await seedSubjects(ctx);
      failures.set(server.name, await firstSpends(server, token));
    },
    verify: async (server, rounds) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ok = rounds.reduce((sum, r) => sum + r.requests - r.non2xx, 0);
      const { spends, answered, unaccounted } = await ledger(ctx);
      const calls = addCalls(...rounds.map((r) => r.calls));
      const problems: string[] = [];
      const first = failures.get(server.name) ?? 0;
      if (first > 0) problems.push(`${first} first spends not answered 200`);
      if (spends < ok) problems.push(`${ok - spends} spends answered 200 but not recorded`);
      if (answered !== spends)
        problems.push(`${spends} spend entries against ${answered} keys answered 200`);
      if (unaccounted !== 0) problems.push(`balances off the spends recorded by ${unaccounted}`);
      if (Object.values(calls).some((n) => n > 0))
        problems.push(`provider calls: ${describeCalls(calls)} (a spend makes none)`);
      return {
        problems,
        notes: [
          `${ok} spends answered 200 in the rounds; ${spends} recorded since seeding (first spends, warm-up and those in flight as a window closed included), each key once, balances down by exactly that`,
        ],
      };
    },
  });
}

/** One scenario per server, for a pair whose servers do different work (the floor's S1, the service's spends). */
export const eachServer = (pick: (server: Server) => Scenario): Scenario => ({
  prepare: (server) => pick(server).prepare(server),
  round: (server, index) => pick(server).round(server, index),
  verify: (server) => pick(server).verify(server),
});
