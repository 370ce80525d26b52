// A newcomer's first ten minutes, literally: a clone of this repository's committed HEAD into a new
// directory, `npm ci` there, `npm start` from the clone's root with no DATA_DIR and no
// configuration but the two ports it needs, then the README's "Walk-through with curl" block run
// as written (only the ports changed), then SIGTERM: exit 0, ports freed, the data under the
// clone's own `.data`. Nothing here was prepared by another test or helper: the clone has no
// `.data`, no `dist/`, no node_modules until its own `npm ci`.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { onPostgres } from '../helpers/database.ts';
import { stopLeftoverPostgres } from '../helpers/embedded-service.ts';
import { freePort } from '../../support/free-port.ts';

const run = promisify(execFile);
// Only what any shell has: the newcomer exported nothing but how this machine reaches the registry.
const NETWORK = [
  'npm_config_registry',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
];
const BARE_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? tmpdir(),
  ...Object.fromEntries(
    NETWORK.flatMap((name) =>
      process.env[name] === undefined ? [] : [[name, process.env[name]!]],
    ),
  ),
};
const SHUTDOWN_BOUND_MS = 15_000;

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket
      .once('connect', () => (socket.destroy(), resolve(true)))
      .once('error', () => resolve(false));
  });

interface Step {
  command: string;
  /** The JSON the README shows under the command, if any. */
  shown: Record<string, unknown> | null;
}

/** The README's walk-through: its first sh block, as commands (continuations joined) and the output shown under each. */
function walkThrough(readme: string): Step[] {
  const section = readme.slice(readme.indexOf('## Walk-through with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const steps: Step[] = [];
  for (const line of block.replace(/\\\n\s*/g, '').split('\n')) {
    if (line.startsWith('# {') && steps.length > 0)
      steps.at(-1)!.shown = JSON.parse(line.slice(2)) as Record<string, unknown>;
    else if (line.trim() !== '' && !line.startsWith('#') && !line.startsWith('npm ci'))
      steps.push({ command: line.replace(/\s+#.*$/, ''), shown: null });
  }
  return steps;
}

describe(
  'a newcomer on a fresh clone: npm ci, npm start, the README walk-through, SIGTERM',
  { skip: onPostgres && 'runs once, in the first half' },
  () => {
    let parent: string;
    let clone: string;
    let npmStart: ChildProcess | null = null;
    before(async () => {
      parent = await mkdtemp(join(tmpdir(), 'billing-newcomer-'));
      await chmod(parent, 0o711); // as root the embedded PostgreSQL runs as another user, who must pass through
      clone = join(parent, 'clone');
      const { stdout: top } = await run('git', ['rev-parse', '--show-toplevel']);
      await run('git', ['clone', '--quiet', top.trim(), clone]);
    });
    after(async () => {
      if (npmStart?.exitCode === null) process.kill(-npmStart.pid!, 'SIGKILL');
      await stopLeftoverPostgres(join(clone, '.data'));
      await rm(parent, { recursive: true, force: true });
    });

    test('everything the README promises, in order', { timeout: 600_000 }, async () => {
      assert.equal(existsSync(join(clone, '.data')), false, 'a fresh clone has no .data');
      await run('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: clone,
        env: BARE_ENV,
        maxBuffer: 16 * 1024 * 1024,
      });

      const [port, simulatorPort] = [await freePort(), await freePort()];
      const lines: string[] = [];
      // A process group of its own, as a terminal's job; SIGTERM goes to npm, as a process manager sends it.
      npmStart = spawn('npm', ['start'], {
        cwd: clone,
        env: { ...BARE_ENV, PORT: String(port), PAYMENTS_SIMULATOR_PORT: String(simulatorPort) },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const collect = (chunk: Buffer) => lines.push(...chunk.toString().split('\n'));
      npmStart.stdout!.on('data', collect);
      npmStart.stderr!.on('data', collect);
      const exited = once(npmStart, 'exit');
      for (let waited = 0; !(await listening(port)); waited += 250) {
        assert.equal(npmStart.exitCode, null, `npm start exited: ${lines.slice(-5).join('\n')}`);
        assert.ok(
          waited < 120_000,
          `npm start did not listen within 120 s: ${lines.slice(-5).join('\n')}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      // The banner follows the listening socket (the service first records where it listens).
      const bannerShown = () =>
        lines.some(
          (line) => line.includes(`Start here`) && line.includes(`http://127.0.0.1:${port}/`),
        );
      for (let waited = 0; !bannerShown() && waited < 10_000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(bannerShown(), `the banner lists what to open: ${lines.join('\n')}`);

      const steps = walkThrough(await readFile(join(clone, 'README.md'), 'utf8'));
      assert.deepEqual(
        steps.map((step) => /(users\/me|billing\/\w+|token)/.exec(step.command)?.[1]),
        ['token', 'users/me', 'billing/portal', 'billing/checkout'],
      );
      const localised = (text: string) =>
        text
          .replaceAll('127.0.0.1:8000', `127.0.0.1:${port}`)
          .replaceAll('127.0.0.1:12111', `127.0.0.1:${simulatorPort}`);
      const script = steps.map((step) => `${localised(step.command)}\necho; echo '@@@'`).join('\n');
      const { stdout } = await run('bash', ['-ec', script], { cwd: clone, env: BARE_ENV });
      const outputs = stdout
        .split('@@@\n')
        .slice(0, steps.length)
        .map((output) => output.trim());

      steps.forEach((step, i) => {
        if (step.shown === null) return;
        const answered = JSON.parse(outputs[i]!) as Record<string, unknown>;
        assert.deepEqual(
          Object.keys(answered).sort(),
          Object.keys(step.shown).sort(),
          `${step.command} answered ${outputs[i]}`,
        );
      });
      const [, me, portal, checkout] = outputs.map((output, i) =>
        i === 0 ? {} : (JSON.parse(output) as Record<string, string>),
      );
      assert.deepEqual([me!.idp_id, me!.email, me!.tier], ['alice', 'alice@example.com', 'free']);
      assert.match(portal!.detail!, /nothing to manage yet/);
      assert.match(
        checkout!.url!,
        new RegExp(`^http://127\\.0\\.0\\.1:${simulatorPort}/checkout/cs_`),
      );

      const signalledAt = Date.now();
      npmStart.kill('SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0, lines.slice(-5).join('\n'));
      assert.ok(
        Date.now() - signalledAt < SHUTDOWN_BOUND_MS,
        `stopped ${Date.now() - signalledAt} ms after SIGTERM`,
      );
      assert.equal(await listening(port), false, 'the API port is freed');
      assert.equal(await listening(simulatorPort), false, 'the simulator port is freed');
      assert.ok(
        existsSync(join(clone, '.data', 'postgres', 'PG_VERSION')),
        "the data is in the clone's .data",
      );
      assert.equal(existsSync(join(clone, '.data', 'owner.pid')), false, 'DATA_DIR given up');
    });
  },
);
