// WEB_CONCURRENCY=2: the primary forks two workers sharing one port; both answer, as one service
// (same user for the same subject), and SIGTERM stops the workers and then the primary, exit 0.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { onPostgres } from '../helpers/database.ts';
import { startServiceProcess, type ServiceProcess } from '../helpers/service-process.ts';

/** GET on a connection of its own, so the cluster may give it to either worker. */
function getOnNewConnection(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent: false, headers: { authorization: `Bearer ${token}`, connection: 'close' } }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('cluster mode, WEB_CONCURRENCY=2 (PostgreSQL)', { skip: !onPostgres && 'needs PostgreSQL' }, () => {
  let t: TestApp;
  let service: ServiceProcess;
  before(async () => {
    t = await buildTestApp();
    service = await startServiceProcess({ ...t.env, WEB_CONCURRENCY: '2' });
  });
  after(async () => {
    await service?.stop();
    await t?.close();
  });

  const logged = () =>
    service.output.flatMap((line) => {
      try {
        return [JSON.parse(line) as { msg?: string; pid?: number; url?: string }];
      } catch {
        return [];
      }
    });

  test('two workers answer requests as one service; SIGTERM ends them all with exit 0', async () => {
    for (let i = 0; i < 100 && logged().filter((entry) => entry.msg?.startsWith('Server listening')).length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const token = await t.token('clustered');
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await getOnNewConnection(`${service.url}/api/v1/users/me`, token));
    assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [200]);
    assert.equal(new Set(answers.map((answer) => (JSON.parse(answer.body) as { id: string }).id)).size, 1);

    const workers = new Set(logged().filter((entry) => entry.msg === 'request completed' && entry.url === '/api/v1/users/me').map((entry) => entry.pid));
    assert.equal(workers.size, 2, `answered by ${[...workers].join(', ')}`);
    assert.ok(!workers.has(service.child.pid), 'the primary answers nothing itself');

    service.child.kill('SIGTERM');
    const [code] = await once(service.child, 'exit');
    assert.equal(code, 0);
  });
});
