// WEB_CONCURRENCY=2: the primary forks two workers sharing one port; both answer, as one service
// (same user for the same subject), and SIGTERM stops the workers and then the primary, exit 0.
// On PostgreSQL and on the embedded default (the primary runs the embedded server, the workers
// connect to it), which then gives DATA_DIR up.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/browser.ts';
import { onPostgres } from '../helpers/database.ts';
import { requestOnFreshConnection } from '../helpers/fresh-connection.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

describe(`cluster mode, WEB_CONCURRENCY=2 (${onPostgres ? 'PostgreSQL' : 'embedded PostgreSQL'})`, () => {
  let t: TestApp;
  let service: ServiceProcess;
  before(async () => {
    t = await buildTestApp();
    service = await startServiceProcess({
      ...t.env,
      ...(onPostgres ? {} : { DATABASE_URL: '' }),
      WEB_CONCURRENCY: '2',
    });
  });
  after(async () => {
    await service?.stop();
    await t?.close();
  });

  test('two workers answer requests as one service; SIGTERM ends them all with exit 0', async () => {
    for (
      let i = 0;
      i < 100 &&
      service.logged().filter((entry) => entry.msg?.startsWith('Server listening')).length < 2;
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const token = await t.token('clustered');
    const answers = [];
    for (let i = 0; i < 20; i++)
      answers.push(
        await requestOnFreshConnection(`${service.url}/api/v1/users/me`, 'GET', {
          authorization: `Bearer ${token}`,
        }),
      );
    assert.deepEqual(
      [...new Set(answers.map((answer) => ('status' in answer ? answer.status : answer.error)))],
      [200],
    );
    assert.equal(
      new Set(
        answers.map((answer) =>
          'body' in answer ? (JSON.parse(answer.body) as { id: string }).id : '',
        ),
      ).size,
      1,
    );

    // Each worker writes its log in batches (at least every 100 ms): wait a moment for both.
    const answeredBy = () =>
      new Set(
        service
          .logged()
          .filter((entry) => entry.msg === 'request completed' && entry.url === '/api/v1/users/me')
          .map((entry) => entry.pid),
      );
    const workers = await until(
      async () => answeredBy(),
      (pids) => pids.size >= 2,
      2_000,
    );
    assert.equal(workers.size, 2, `answered by ${[...workers].join(', ')}`);
    assert.ok(!workers.has(service.child.pid), 'the primary answers nothing itself');

    service.child.kill('SIGTERM');
    const [code] = await once(service.child, 'exit');
    assert.equal(code, 0);
    assert.equal(existsSync(join(t.env.DATA_DIR!, 'owner.pid')), false);
  });
});
