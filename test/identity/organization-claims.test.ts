// The organisation, role and scopes come from the verified token alone, through the same verifier
// as every token: each identity provider's shape (a top-level claim, a JSON Pointer, Keycloak's list
// and object), several organisations naming none, bounded values refused with a 401, and a token
// whose signature is broken never read at all.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createJwtVerifier } from '../../src/adapters/identity/jwt-verifier.ts';
import type { OrganizationClaimPaths } from '../../src/adapters/identity/organization-claims.ts';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { localKeys, signToken } from '../../src/dev/identity-provider.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { Principal } from '../../src/domain/model/callers.ts';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'api://billing';

describe('organisation claims', () => {
  let key: Awaited<ReturnType<typeof generateSigningKey>>;
  before(async () => {
    key = await generateSigningKey();
  });

  const verifier = (organizations: OrganizationClaimPaths | null) =>
    createJwtVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      keys: localKeys(key),
      emailClaim: 'email',
      organizations,
    });
  const token = (extra: Record<string, unknown>, email: string | undefined = 'ann@example.com') =>
    signToken(key, { sub: 'ann', email, issuer: ISSUER, audience: AUDIENCE, extra });
  const principal = async (paths: OrganizationClaimPaths | null, extra: Record<string, unknown>) =>
    verifier(paths).verify(await token(extra));
  const organization = async (paths: OrganizationClaimPaths, extra: Record<string, unknown>) =>
    (await principal(paths, extra)).organization;
  const refusal = async (paths: OrganizationClaimPaths, extra: Record<string, unknown>) =>
    assert.rejects(principal(paths, extra), (error: unknown) => {
      assert.ok(error instanceof DomainError && error.code === 'invalid_token');
      return true;
    });

  test('organisations off: nothing is read, whatever the token says', async () => {
    const found: Principal = await principal(null, { org_id: 'acme', org_role: 'admin' });
    assert.deepEqual(found, { idpId: 'ann', email: 'ann@example.com', organization: null });
  });

  test('a top-level claim taken literally: Auth0 and WorkOS org_id, Entra tid, Zitadel, a namespaced claim', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['org_id', { org_id: 'org_7Qx' }],
      ['tid', { tid: '72f988bf-86f1-41af-91ab-2d7cd011db47' }],
      [
        'urn:zitadel:iam:user:resourceowner:id',
        { 'urn:zitadel:iam:user:resourceowner:id': '2334' },
      ],
      ['https://app.example.com/org', { 'https://app.example.com/org': 'acme' }],
    ];
    for (const [claim, extra] of cases)
      assert.deepEqual(await organization({ claim, roleClaim: null }, extra), {
        kind: 'one',
        idpOrgId: Object.values(extra)[0],
        role: null,
      });
  });

  test("a JSON Pointer: Clerk's session token v2 /o/id with the role in /o/rol, escapes included", async () => {
    const clerk = { o: { id: 'org_2x', rol: 'admin', slg: 'acme' } };
    assert.deepEqual(await organization({ claim: '/o/id', roleClaim: '/o/rol' }, clerk), {
      kind: 'one',
      idpOrgId: 'org_2x',
      role: 'admin',
    });
    const escaped = { 'a/b': { 'c~d': ['x', 'org_9'] } };
    assert.deepEqual(await organization({ claim: '/a~1b/c~0d/1', roleClaim: null }, escaped), {
      kind: 'one',
      idpOrgId: 'org_9',
      role: null,
    });
  });

  test("Keycloak's organization claim: a list of one alias, an object of one alias (its id when given)", async () => {
    const paths = { claim: 'organization', roleClaim: null };
    assert.deepEqual(await organization(paths, { organization: ['acme'] }), {
      kind: 'one',
      idpOrgId: 'acme',
      role: null,
    });
    assert.deepEqual(await organization(paths, { organization: { acme: { id: 'b3b1-42' } } }), {
      kind: 'one',
      idpOrgId: 'b3b1-42',
      role: null,
    });
    assert.deepEqual(await organization(paths, { organization: { acme: {} } }), {
      kind: 'one',
      idpOrgId: 'acme',
      role: null,
    });
  });

  test('several organisations name none for billing', async () => {
    const paths = { claim: 'organization', roleClaim: 'org_role' };
    for (const several of [['acme', 'globex'], { acme: {}, globex: { id: 'g' } }])
      assert.deepEqual(await organization(paths, { organization: several, org_role: 'admin' }), {
        kind: 'several',
      });
  });

  test('no organisation: the claim absent, empty, or of another type', async () => {
    const paths = { claim: '/o/id', roleClaim: '/o/rol' };
    for (const extra of [
      {},
      { o: {} },
      { o: { id: '' } },
      { o: { id: 42 } },
      { o: { id: null } },
      { o: [] },
      { o: 'acme' },
    ])
      assert.equal(await organization(paths, extra), null, JSON.stringify(extra));
    assert.equal(
      await organization({ claim: 'organization', roleClaim: null }, { organization: [] }),
      null,
    );
    assert.equal(
      await organization({ claim: 'organization', roleClaim: null }, { organization: {} }),
      null,
    );
  });

  test('the role as given: a string, a list of strings (others dropped), null when absent', async () => {
    const paths = { claim: 'org_id', roleClaim: 'roles' };
    const role = async (roles: unknown) =>
      ((await organization(paths, { org_id: 'acme', roles })) as { role: unknown }).role;
    assert.equal(await role('org:admin'), 'org:admin');
    assert.deepEqual(await role(['member', 7, 'billing']), ['member', 'billing']);
    assert.equal(await role(undefined), null);
    assert.equal(await role({ admin: true }), null);
  });

  test('bounded: an over-long or unstorable organisation or role, or too many roles, is a refused token', async () => {
    const paths = { claim: 'org_id', roleClaim: 'roles' };
    await refusal(paths, { org_id: 'x'.repeat(256) });
    await refusal(paths, { org_id: 'acme\u0000' });
    await refusal(paths, { org_id: 'acme', roles: 'r'.repeat(256) });
    await refusal(paths, { org_id: 'acme', roles: Array.from({ length: 65 }, (_, i) => `r${i}`) });
    await refusal(
      { claim: 'organization', roleClaim: null },
      { organization: { acme: { id: 'y'.repeat(300) } } },
    );
    assert.equal(
      ((await organization(paths, { org_id: 'x'.repeat(255) })) as { idpOrgId: string }).idpOrgId
        .length,
      255,
    );
  });

  test('a JSON Pointer reads own members only', async () => {
    const paths = { claim: '/o/constructor', roleClaim: '/o/__proto__' };
    assert.equal(await organization(paths, { o: {} }), null);
  });

  test('a service token: scopes from scope (space-separated) and scp (a list, or a string), no e-mail needed', async () => {
    const check = verifier(null);
    const caller = await check.verifyService(
      await token({ scope: 'billing:seats read' }, undefined),
    );
    assert.deepEqual([...caller.scopes], ['billing:seats', 'read']);
    const okta = await check.verifyService(await token({ scp: ['billing:seats'] }, undefined));
    assert.deepEqual([...okta.scopes], ['billing:seats']);
    const entra = await check.verifyService(await token({ scp: 'a b' }, undefined));
    assert.deepEqual([...entra.scopes], ['a', 'b']);
    await assert.rejects(
      check.verifyService(`${await token({ scope: 'billing:seats' })}x`),
      /Invalid token/,
    );
  });
});
