// A client generated from /openapi.json type-checks: openapi-typescript turns the document into
// types, a small client snippet uses them (reading `tier` from the profile, the checkout URL, the
// error bodies), and the project's own tsc compiles it under strict. The @ts-expect-error lines
// prove the types are real: were a field typed `any` or missing, tsc would fail on them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { databaseLabel } from '../helpers/database.ts';

const PROJECT = new URL('../../', import.meta.url).pathname;

const CLIENT = `import type { components, paths } from './openapi.ts';

type Me = paths['/api/v1/users/me']['get']['responses'][200]['content']['application/json'];
export const tier: Me['tier'] = 'pro';
export const me: Me = { id: '8da1c2d4-5e6f-4a1b-8c9d-0e1f2a3b4c5d', idp_id: 'alice', email: 'alice@example.com', tier: 'free', created_at: '2026-01-01T00:00:00+00:00' };
// @ts-expect-error tier is a string
export const numericTier: Me['tier'] = 5;
// @ts-expect-error the profile has exactly the documented fields
export const withPlan: Me = { id: 'x', idp_id: 'alice', email: 'a@example.com', tier: 'free', created_at: 'x', plan: 'team' };
export const unauthorized: paths['/api/v1/users/me']['get']['responses'][401]['content']['application/json']['detail'] = 'Not authenticated';

type Checkout = paths['/api/v1/billing/checkout']['post'];
export const request: NonNullable<Checkout['requestBody']>['content']['application/json'] = { success_url: 'https://app.example.com/done' };
export const url: Checkout['responses'][200]['content']['application/json']['url'] = 'https://checkout.example.com/cs_1';
export const conflict: Checkout['responses'][409]['content']['application/json'] = { detail: 'Subscription already active' };
export const invalid: Checkout['responses'][422]['content']['application/json'] = { detail: [{ loc: ['body', 'success_url'], msg: 'Input should be a valid string', type: 'string_type', input: 5 }] };
// @ts-expect-error a validation error's loc holds strings and integers only
export const badLoc: components['schemas']['ValidationError'] = { loc: [true], msg: 'm', type: 't' };

type Portal = paths['/api/v1/billing/portal']['post'];
export const portalRequest: NonNullable<Portal['requestBody']>['content']['application/json'] = { return_url: 'https://app.example.com/account' };
export const portalUrl: Portal['responses'][200]['content']['application/json']['url'] = 'https://billing.example.com/p/session/1';
export const nothingYet: Portal['responses'][409]['content']['application/json'] = { detail: 'There is nothing to manage yet' };
// @ts-expect-error return_url is a string
export const numericReturn: NonNullable<Portal['requestBody']>['content']['application/json'] = { return_url: 5 };

type Summary = paths['/api/v1/billing/subscription']['get']['responses'][200]['content']['application/json'];
export const summary: Summary = { tier: 'pro', plan: 'pro', trial_eligible: false, features: ['export', 'api'], limits: { projects: 20, seats: null }, subscription: { status: 'trialing', plan: 'pro', interval: 'month', trial_end: '2026-01-15T00:00:00+00:00', current_period_end: '2026-01-15T00:00:00+00:00', cancel_at: null, cancel_at_period_end: false, pending_change: null } };
export const noSubscription: Summary = { tier: 'free', plan: 'pro', trial_eligible: true, features: [], limits: {}, subscription: null };
// @ts-expect-error a limit is an integer or null
export const textLimit: Summary['limits'] = { projects: 'many' };
// @ts-expect-error the summary has exactly the documented fields
export const withExtra: Summary = { ...noSubscription, entitlements: {} };

export const event: paths['/api/v1/webhooks/payments']['post']['responses'][200]['content']['application/json'] = { status: 'processed' };
`;

describe(`typed client from the OpenAPI document (${databaseLabel})`, () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    t = await buildTestApp();
    // Inside the project, so tsc runs as the project's and resolves as it does; node_modules is ignored by git.
    await mkdir(join(PROJECT, 'node_modules', '.cache'), { recursive: true });
    dir = await mkdtemp(join(PROJECT, 'node_modules', '.cache', 'typed-client-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await t.close();
  });

  test('types generated with openapi-typescript compile with a client that uses them', async () => {
    const document = (
      await t.app.inject({ method: 'GET', url: '/openapi.json' })
    ).json() as OpenAPI3;
    const types = astToString(await openapiTS(document, { silent: true }));
    assert.match(types, /"\/api\/v1\/users\/me"/);
    await writeFile(join(dir, 'openapi.ts'), types);
    await writeFile(join(dir, 'client.ts'), CLIENT);
    const compilerOptions = {
      strict: true,
      noEmit: true,
      noUncheckedIndexedAccess: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: [],
    };
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['openapi.ts', 'client.ts'] }),
    );
    const tsc = join(PROJECT, 'node_modules', '.bin', 'tsc');
    const result = await promisify(execFile)(tsc, ['-p', dir], { cwd: PROJECT }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: `${error.stdout}${error.stderr}`,
      }),
    );
    assert.equal(result.code, 0, `tsc failed:\n${result.output}`);
  });
});
