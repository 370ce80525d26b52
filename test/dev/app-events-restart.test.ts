// /dev/app-events after a restart: what arrived is still listed when DATA_DIR is kept (a second
// app on the same DATA_DIR stands in for the restarted service), and a long JSON line wraps
// inside the page instead of running off its right edge; the file behind it stays bounded.
import assert from 'node:assert/strict';
import { appendFile, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { arrivalLog } from '../../src/dev/app-events-log.ts';
import { bearer, buildTestApp, type TestApp } from '../helpers/app.ts';
import { devToken } from '../helpers/browser.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { freshDataDir } from '../helpers/data-dir.ts';
import { deliver, eventOf, subscriptionObject } from '../helpers/stripe-fixtures.ts';

const dataDir = freshDataDir('app-events-restart');

async function listening(): Promise<{ t: TestApp; base: string }> {
  const t = await buildTestApp({ NODE_ENV: 'development', DATA_DIR: dataDir });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  t.composition.setServiceUrl(base);
  return { t, base };
}

/** Until the receiver lists the outbound event (the background worker may send it first). */
async function delivered({ t, base }: { t: TestApp; base: string }): Promise<void> {
  for (let tries = 0; tries < 50; tries++) {
    await t.composition.jobs.deliveries!.deliverDue();
    if ((await (await fetch(`${base}/dev/app-events`)).text()).includes('tier.changed')) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.fail('the event never reached /dev/app-events');
}

describe(
  `the development receiver's list across a restart (${databaseLabel})`,
  onceInTheSuite,
  () => {
    after(() => rm(dataDir, { recursive: true, force: true }));

    test('an event received before the restart is listed after it, verified', async () => {
      const first = await listening();
      let user: { id: string };
      try {
        // buildTestApp's token() signs with its own DATA_DIR's key: this one's is needed here.
        const token = await devToken(first.t.env, 'dev-restart', 'dev-restart@example.com');
        user = (
          await first.t.app.inject({ url: '/api/v1/users/me', headers: bearer(token) })
        ).json();
        const subscription = subscriptionObject({ metadata: { user_id: user.id } });
        await deliver(first.t.app, eventOf('customer.subscription.created', subscription));
        await delivered(first);
      } finally {
        await first.t.close();
      }

      const second = await listening();
      try {
        const listed = await (await fetch(`${second.base}/dev/app-events`)).text();
        assert.match(listed, /<strong>tier\.changed<\/strong>/);
        assert.match(listed, /verified/);
        assert.match(
          listed,
          new RegExp(
            `&quot;id&quot;:&quot;${user.id}&quot;,&quot;idp_id&quot;:&quot;dev-restart&quot;`,
          ),
        );
      } finally {
        await second.t.close();
      }
    });

    test('an event body wraps within the page', async () => {
      const { t, base } = await listening();
      try {
        const html = await (await fetch(`${base}/dev/app-events`)).text();
        const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
        assert.match(style, /pre\{[^}]*white-space:pre-wrap/);
        assert.match(style, /pre\{[^}]*overflow-wrap:anywhere/);
      } finally {
        await t.close();
      }
    });

    test('the file keeps the newest arrivals only, skips a torn line and lists a retry once', async () => {
      const dir = freshDataDir('app-events-log');
      try {
        const log = arrivalLog(dir, 3);
        const arrival = (id: string) => ({ receivedAt: 'now', id, problem: null, body: '{}' });
        for (const id of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) await log.record(arrival(id));
        await log.record(arrival('g'));
        await appendFile(join(dir, 'app-events.jsonl'), '{"id":"torn');
        assert.deepEqual(
          (await log.recent()).map((a) => a.id),
          ['g', 'f', 'e'],
        );
        assert.ok((await readFile(join(dir, 'app-events.jsonl'), 'utf8')).split('\n').length <= 8);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  },
);
