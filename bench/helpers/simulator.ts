// The payment provider of the benchmark: the service's own Stripe-compatible simulator, started
// standalone in a process of its own (state in sim_* tables of the benchmark's database). It
// delivers no webhooks (no webhook URL): S2 and S3 send their events themselves.
import { openPostgres } from '../../src/adapters/database/postgres.ts';
import { startPaymentsSimulator } from '@billing/payments-simulator';

const prices = new Map(
  process.env.BILLING_PRICES!.split(',').map((pair) => pair.split('=') as [string, string]),
);
const db = openPostgres(process.env.DATABASE_URL!, { poolSize: 4 });
const simulator = await startPaymentsSimulator({
  db,
  host: '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  apiKey: process.env.PAYMENTS_API_KEY!,
  webhookUrl: () => null,
  webhookSecret: process.env.PAYMENTS_WEBHOOK_SECRET!,
  prices,
});
console.log(`payments simulator listening on ${simulator.url}`);

const stop = () =>
  void simulator
    .close()
    .then(() => db.close())
    .finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.on('disconnect', stop);
