// The simulator as a command of its own (bin/payments-simulator.mjs), as another project runs it:
// started as a process with flags, driven by the official stripe SDK, delivering signed events
// to a webhook receiver that verifies each with the SDK's constructEvent. SIGTERM stops it cleanly.
// Without --one-time-prices it sells the default credit packs.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type Stripe from 'stripe';
import {
  createTestDatabase,
  databaseLabel,
  openCheckout,
  pay,
  sdk,
  startReceiver,
  type Receiver,
} from './harness.ts';

const BIN = fileURLToPath(new URL('../bin/payments-simulator.mjs', import.meta.url));
const API_KEY = 'sk_test_standalone';
const SECRET = 'whsec_standalone_secret';

interface Running {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** Starts the command and waits for the line that says where it listens. */
async function run(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SIMULATOR_PORT: '' },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" line within 30 s:\n${output}`)),
      30_000,
    );
    const look = () => {
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before listening:\n${output}`)),
    );
  });
  return { child, url, output: () => output };
}

describe(`the payments-simulator command (${databaseLabel})`, () => {
  let database: { url: string; drop(): Promise<void> };
  let receiver: Receiver;
  let simulator: Running;
  let stripe: Stripe;
  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver(SECRET);
    simulator = await run([
      '--port',
      '0',
      '--webhook-url',
      receiver.url,
      '--webhook-secret',
      SECRET,
      '--api-key',
      API_KEY,
      '--prices',
      'pro=price_standalone_pro',
      '--database',
      database.url,
    ]);
    stripe = sdk(simulator, API_KEY);
  });
  after(async () => {
    if (simulator?.child.exitCode === null) simulator.child.kill('SIGKILL');
    await receiver?.close();
    await database?.drop();
  });

  test('serves the API to the SDK with the given key and prices', async () => {
    const price = await stripe.prices.retrieve('price_standalone_pro');
    assert.equal(price.unit_amount, 1500);
    assert.equal(price.recurring?.interval, 'month');
    // Without --one-time-prices, the default credit packs.
    const packs = await stripe.prices.list({ type: 'one_time' });
    assert.deepEqual(packs.data.map((p) => [p.id, p.unit_amount]).sort(), [
      ['price_sim_credits_large', 3500],
      ['price_sim_credits_small', 900],
    ]);
    await assert.rejects(
      sdk(simulator).customers.list(),
      (error: Stripe.errors.StripeError) => error.statusCode === 401,
    );
  });

  test('a paid checkout sends signed events to --webhook-url, verified by constructEvent', async () => {
    const { customer, session } = await openCheckout(
      stripe,
      'standalone-user',
      'price_standalone_pro',
    );
    assert.equal(session.url, `${simulator.url}/checkout/${session.id}`);
    const paid = await pay(simulator, session.id);
    assert.equal(paid.status, 303);
    await receiver.waitFor(3, 10_000);
    assert.deepEqual(receiver.rejected, []);
    assert.deepEqual(
      receiver.events.map((event) => event.type),
      ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
    );
    const subscription = (await stripe.checkout.sessions.retrieve(session.id))
      .subscription as string;
    assert.equal((await stripe.subscriptions.retrieve(subscription)).customer, customer.id);
  });

  test('SIGTERM stops it with exit code 0', async () => {
    simulator.child.kill('SIGTERM');
    const [code] = await once(simulator.child, 'exit');
    assert.equal(code, 0, simulator.output());
  });

  test('a bad flag is refused in one line, naming the flag', async () => {
    const child = spawn(process.execPath, [BIN, '--prices', 'pro'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const [code] = await once(child, 'exit');
    assert.equal(code, 2);
    assert.match(stderr, /^payments-simulator: --prices: expected tier=price_id/);
    const packs = spawn(process.execPath, [BIN, '--one-time-prices', 'small=price_sim_pro'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    packs.stderr.on('data', (chunk) => (said += chunk));
    assert.equal((await once(packs, 'exit'))[0], 2);
    assert.match(
      said,
      /^payments-simulator: --one-time-prices: price_sim_pro is already a recurring price/,
    );
  });
});
