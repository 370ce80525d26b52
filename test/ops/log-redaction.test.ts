// Logs never carry credentials: after a whole flow (profile, checkout, payment, signed webhooks,
// the billing portal by the API and by the development /billing form, which posts the token)
// the service's log holds no bearer token, no API key and no webhook secret or signature, while
// it does hold the requests themselves (so the grep is not vacuous).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SIMULATOR_API_KEY, SIMULATOR_WEBHOOK_SECRET } from '../../src/config.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { requestLogged } from '../helpers/request-log.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

describe(
  'log redaction over a full flow',
  { skip: onPostgres && 'runs once, in the PGlite half' },
  () => {
    let t: TestApp;
    let service: ServiceProcess;
    before(async () => {
      t = await buildTestApp();
      service = await startServiceProcess({ ...t.env, DATABASE_URL: '' });
    });
    after(async () => {
      await service.stop();
      await t.close();
    });

    test('no token, key, secret or signature in the log', async () => {
      const token = await t.token('log-user');
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      assert.equal((await fetch(`${service.url}/api/v1/users/me`, { headers })).status, 200);
      const checkout = await fetch(`${service.url}/api/v1/billing/checkout`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      const { url } = (await checkout.json()) as { url: string };
      const paid = await fetch(`${url}/pay`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      assert.equal(paid.status, 303);
      const tier = async () =>
        (
          (await (await fetch(`${service.url}/api/v1/users/me`, { headers })).json()) as {
            tier: string;
          }
        ).tier;
      for (let i = 0; i < 50 && (await tier()) !== 'pro'; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await tier(), 'pro');
      assert.equal(
        (
          await fetch(`${service.url}/api/v1/billing/portal`, {
            method: 'POST',
            headers,
            body: '{}',
          })
        ).status,
        200,
      );
      const form = {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }).toString(),
      } as const;
      const portalForm = await fetch(`${service.url}/billing/portal`, form);
      assert.equal(portalForm.status, 303);
      await requestLogged(service, portalForm); // the flow's last request, logged to its end

      const log = service.output.join('\n');
      assert.match(log, /\/api\/v1\/webhooks\/payments/);
      assert.match(log, /\/api\/v1\/billing\/checkout/);
      assert.match(log, /"url":"\/billing\/portal"/);
      for (const secret of [
        token,
        token.split('.')[2]!,
        SIMULATOR_API_KEY,
        SIMULATOR_WEBHOOK_SECRET,
      ]) {
        assert.ok(!log.includes(secret), `log leaks ${secret.slice(0, 12)}…`);
      }
      assert.doesNotMatch(log, /Bearer [A-Za-z0-9]/);
      assert.doesNotMatch(log, /v1=[0-9a-f]{64}/);
    });
  },
);
