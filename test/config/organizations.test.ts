// The organisations' variables: what they default to (off with a real issuer until IDP_ORG_CLAIM is
// set; the development identity provider's own claims otherwise), and every bad value refused in
// one line naming the variable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

type Env = Record<string, string>;

const OIDC: Env = {
  IDP_ISSUER: 'https://tenant.example/',
  IDP_AUDIENCE: 'api://billing',
  DATA_DIR: '/tmp/billing-orgs-config',
};

function refusal(env: Env): string {
  try {
    loadConfig({ DATA_DIR: '/tmp/billing-orgs-config', ...env });
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  return assert.fail('accepted');
}

describe('organisations configuration', () => {
  test('a real issuer without IDP_ORG_CLAIM: organisations off', () => {
    assert.equal(loadConfig(OIDC).organizations, null);
  });

  test('the development identity provider reads the claims `npm run token -- --org --role` mints', () => {
    assert.deepEqual(loadConfig({ DATA_DIR: '/tmp/billing-orgs-config' }).organizations, {
      claim: 'org_id',
      roleClaim: 'org_role',
      issuer: 'development',
      managerRoles: ['owner', 'admin'],
      plan: 'team',
      seats: { mode: 'active', activeDays: 30, minimum: 1 },
    });
  });

  test('set: a pointer, a role claim, roles, a plan and the seats as given', () => {
    const config = loadConfig({
      ...OIDC,
      IDP_ORG_CLAIM: '/o/id',
      IDP_ORG_ROLE_CLAIM: '/o/rol',
      BILLING_ORG_MANAGER_ROLES: 'org:admin, billing',
      BILLING_ORG_PLAN: 'pro',
      BILLING_SEATS: 'reported',
      BILLING_SEAT_ACTIVE_DAYS: '7',
      BILLING_SEAT_MINIMUM: '3',
      BILLING_SERVICE_SCOPE: 'seats:write',
    });
    assert.deepEqual(config.organizations, {
      claim: '/o/id',
      roleClaim: '/o/rol',
      issuer: 'https://tenant.example/',
      managerRoles: ['org:admin', 'billing'],
      plan: 'pro',
      seats: { mode: 'reported', activeDays: 7, minimum: 3 },
    });
    assert.equal(config.serviceScope, 'seats:write');
  });

  test('claim names are taken literally, dots and slashes included', () => {
    for (const claim of [
      'org_id',
      'urn:zitadel:iam:user:resourceowner:id',
      'https://x.example/org',
    ])
      assert.equal(loadConfig({ ...OIDC, IDP_ORG_CLAIM: claim }).organizations?.claim, claim);
    assert.equal(
      loadConfig({ ...OIDC, IDP_ORG_CLAIM: '/a~1b/c~0d' }).organizations?.claim,
      '/a~1b/c~0d',
    );
  });

  test('each bad value is refused in one line naming its variable', () => {
    const cases: [Env, string, RegExp][] = [
      [{ IDP_ORG_CLAIM: '/o/~2' }, 'IDP_ORG_CLAIM', /JSON Pointer/],
      [{ IDP_ORG_CLAIM: '/o~' }, 'IDP_ORG_CLAIM', /~0/],
      [{ IDP_ORG_CLAIM: 'x'.repeat(257) }, 'IDP_ORG_CLAIM', /256 characters/],
      [{ IDP_ORG_ROLE_CLAIM: '/roles/~x' }, 'IDP_ORG_ROLE_CLAIM', /JSON Pointer/],
      [{ BILLING_SEATS: 'members' }, 'BILLING_SEATS', /active, reported, flat/],
      [{ BILLING_ORG_PLAN: 'gold' }, 'BILLING_ORG_PLAN', /tiers of BILLING_PRICES \(pro, team\)/],
      [{ BILLING_SEAT_MINIMUM: '0' }, 'BILLING_SEAT_MINIMUM', /1 to 10000/],
      [{ BILLING_SEAT_MINIMUM: '10001' }, 'BILLING_SEAT_MINIMUM', /1 to 10000/],
      [{ BILLING_SEAT_ACTIVE_DAYS: '0' }, 'BILLING_SEAT_ACTIVE_DAYS', /1 to 365/],
      [{ BILLING_SERVICE_SCOPE: 'billing seats' }, 'BILLING_SERVICE_SCOPE', /one scope/],
      [{ BILLING_ORG_MANAGER_ROLES: 'owner,,admin' }, 'BILLING_ORG_MANAGER_ROLES', /role names/],
      [{ ...OIDC, IDP_ORG_ROLE_CLAIM: 'role' }, 'IDP_ORG_ROLE_CLAIM', /needs IDP_ORG_CLAIM/],
    ];
    for (const [env, variable, says] of cases) {
      const message = refusal(env);
      assert.doesNotMatch(message, /\n/, variable);
      assert.match(message, new RegExp(`^Invalid configuration: ${variable} `), message);
      assert.match(message, says, message);
    }
  });
});
