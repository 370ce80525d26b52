// Organisations: a burst of members signing in (N organisations, M members each, every one a
// first request naming its organisation), against a service with IDP_ORG_CLAIM set whose seat
// engine brings each organisation's subscription quantity to its members. The organisations bought
// their plan first (a checkout each, paid at the simulator, stored by a reconciliation: the
// benchmark's simulator sends no webhooks). Measured: the burst's requests, the provider calls per
// organisation it caused (quantity updates, expected a handful each, not one per member) and the
// time from the burst's start until every organisation is billed for its members.
import { join } from 'node:path';
import type { OidcTestIssuer } from '../../support/oidc-issuer.ts';
import { freePort } from '../../support/free-port.ts';
import { processTree, startNode, waitForHttp } from './processes.ts';
import { describeCalls, resetCalls, settledCalls } from './provider-calls.ts';
import type { BenchContext, Measurement } from './scenarios.ts';
import { watchUsage } from './processes.ts';
import { SERVICE_ENTRY, SERVICE_NODE_FLAGS, serviceEnv, type Stack } from './stack.ts';

export const QUANTITY_UPDATE = 'POST /v1/subscriptions/:id';
const IN_FLIGHT = 64;
const CONVERGE_WITHIN_MS = 120_000;

export interface OrganizationsSettings {
  organizations: number;
  membersEach: number;
}

const orgName = (i: number) => `bench-org-${i}`;

/** Requests `count` in parallel, at most IN_FLIGHT at once; resolves to the statuses. */
async function burst(count: number, request: (i: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) {
        const response = await request(next++);
        statuses.push(response.status);
        await response.arrayBuffer();
      }
    }),
  );
  return statuses;
}

async function startOrganizationService(stack: Stack) {
  const port = await freePort();
  const managed = startNode({
    name: 'service organisations',
    args: [
      ...SERVICE_NODE_FLAGS,
      ...(SERVICE_ENTRY.endsWith('.ts') ? ['--import', 'tsx'] : []),
      SERVICE_ENTRY,
    ],
    env: {
      ...serviceEnv(stack),
      PORT: String(port),
      IDP_ORG_CLAIM: 'org_id',
      IDP_ORG_ROLE_CLAIM: 'org_role',
      BILLING_ORG_PLAN: 'team',
    },
    logFile: join(stack.logsDir, 'service-organisations.log'),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, managed);
  return { url, managed };
}

/** Each organisation's owner checks out and pays; a reconciliation then stores the subscriptions. */
async function subscribeAll(
  service: string,
  stack: Stack,
  issuer: OidcTestIssuer,
  count: number,
): Promise<string[]> {
  const problems: string[] = [];
  const owner = (i: number) =>
    issuer.token(`${orgName(i)}-owner`, { extra: { org_id: orgName(i), org_role: 'owner' } });
  await burst(count, async (i) => {
    const checkout = await fetch(`${service}/api/v1/orgs/current/billing/checkout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await owner(i)}`, 'content-type': 'application/json' },
      body: '{}',
    });
    if (!checkout.ok) problems.push(`checkout ${orgName(i)}: ${checkout.status}`);
    const { url } = (await checkout.json()) as { url: string };
    return fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
  });
  const reconcile = startNode({
    name: 'reconcile-organisations',
    args: ['--import', 'tsx', 'src/cli/index.ts', 'reconcile'],
    env: serviceEnv(stack),
    logFile: join(stack.logsDir, 'reconcile-organisations.log'),
  });
  await reconcile.exited;
  if (reconcile.child.exitCode !== 0) problems.push('the reconciliation storing them failed');
  return problems;
}

/** Organisations not yet billed at the provider for `quantity` (as the service stored its answers). */
async function unsettled(ctx: BenchContext, count: number, quantity: number): Promise<number> {
  const { rows } = await ctx.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM organizations o
     JOIN subscriptions s ON s.organization_id = o.id AND s.status = 'active'
     WHERE o.idp_org_id LIKE 'bench-org-%' AND s.quantity = $1`,
    [quantity],
  );
  return count - rows[0]!.n;
}

export async function organizationsBurst(
  ctx: BenchContext,
  stack: Stack,
  issuer: OidcTestIssuer,
  { organizations, membersEach }: OrganizationsSettings,
): Promise<Measurement> {
  const service = await startOrganizationService(stack);
  try {
    const problems = await subscribeAll(service.url, stack, issuer, organizations);
    const members = organizations * membersEach;
    const tokens = await Promise.all(
      Array.from({ length: members }, (_, i) =>
        issuer.token(`bench-member-${i}`, {
          extra: { org_id: orgName(i % organizations), org_role: 'member' },
        }),
      ),
    );
    await resetCalls(ctx.simulatorUrl);
    const usage = watchUsage(processTree(service.managed.child.pid!), 'server');
    const started = performance.now();
    const statuses = await burst(members, (i) =>
      fetch(`${service.url}/api/v1/users/me`, {
        headers: { authorization: `Bearer ${tokens[i]}` },
      }),
    );
    const burstMs = performance.now() - started;
    let left = await unsettled(ctx, organizations, membersEach + 1);
    while (left > 0 && performance.now() - started < CONVERGE_WITHIN_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = await unsettled(ctx, organizations, membersEach + 1);
    }
    const convergedMs = performance.now() - started;
    const used = usage();
    const calls = await settledCalls(ctx.simulatorUrl);
    const updates = calls[QUANTITY_UPDATE] ?? 0;
    const non2xx = statuses.filter((status) => status !== 200).length;
    if (left > 0)
      problems.push(
        `${left} organisations not billed for their members after ${CONVERGE_WITHIN_MS / 1000} s`,
      );
    if (non2xx > 0) problems.push(`${non2xx} non-200 answers to the burst`);
    return {
      requests: members,
      durationS: burstMs / 1000,
      rps: members / (burstMs / 1000),
      p50: NaN,
      p99: NaN,
      non2xx,
      wallMs: convergedMs,
      ...used,
      calls,
      problems,
      notes: [
        `${members} first requests of members of ${organizations} organisations in ${(burstMs / 1000).toFixed(1)} s; every organisation billed for its ${membersEach + 1} members ${(convergedMs / 1000).toFixed(1)} s after the burst began`,
        `${updates} quantity updates, ${(updates / organizations).toFixed(2)} per organisation (${membersEach} new members each); provider calls: ${describeCalls(calls)}`,
      ],
    };
  } finally {
    await service.managed.stop();
  }
}
