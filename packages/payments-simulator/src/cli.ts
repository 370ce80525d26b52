// `payments-simulator`: the simulator as a process of its own, a local Stripe for any application
// that uses the official SDK. Options come from flags, else from SIMULATOR_* variables, else the
// defaults below. It prints where it listens, logs each webhook delivery as a line of JSON, and
// closes cleanly on SIGTERM or SIGINT.
import { parseArgs } from 'node:util';
import {
  fail,
  parseOneTimePrices,
  parsePayload,
  parsePort,
  parsePrices,
  parseSwitch,
  parseWebhookUrl,
} from './cli-values.ts';
import { openDatabase, startPaymentsSimulator } from './index.ts';

const USAGE = `Usage: payments-simulator [options]

A local Stripe: the REST API subset, hosted checkout, billing portal, dashboard and signed webhooks.

  --port <n>             where it listens; 0 picks a free port     SIMULATOR_PORT, default 12111
  --host <address>       the address it listens on                  SIMULATOR_HOST, default 127.0.0.1
  --webhook-url <url>    where signed events are POSTed             SIMULATOR_WEBHOOK_URL, default none (events wait)
  --webhook-secret <s>   the webhook signing secret                 SIMULATOR_WEBHOOK_SECRET, default whsec_local_simulator
  --webhook-payload <p>  snapshot (v1 events) or thin (v2 notifications)
                                                                    SIMULATOR_WEBHOOK_PAYLOAD, default snapshot
  --thin-webhook-secret <s>
                         the secret thin notifications are signed with
                                                                    SIMULATOR_THIN_WEBHOOK_SECRET, default the webhook secret
  --pause-on-payment-failure <true|false>
                         a failed renewal pauses the subscription   SIMULATOR_PAUSE_ON_PAYMENT_FAILURE, default false
  --api-key <key>        the only secret key accepted               SIMULATOR_API_KEY, default sk_test_simulator
  --prices <list>        tier=price_id,... a monthly USD price each (tier@month= too), and
                         tier@year=price_id a yearly one            SIMULATOR_PRICES, default
                         pro=price_sim_pro,pro@year=price_sim_pro_year,team=price_sim_team,team@year=price_sim_team_year
  --one-time-prices <list>
                         pack=price_id,... a one-time USD price each (credit packs: small 9.00,
                         large 35.00, others 10.00); empty for none
                                                                    SIMULATOR_ONE_TIME_PRICES, default
                         small=price_sim_credits_small,large=price_sim_credits_large
  --database <url>       memory:// (forgotten on exit) or postgres://...
                                                                    SIMULATOR_DATABASE_URL, default memory://
  --allowed-hosts <list> host names it answers to besides IP addresses and localhost (a container's
                         service name, say); any other Host gets 421    SIMULATOR_ALLOWED_HOSTS, default none
  --help                 this text`;

const OPTIONS = {
  port: { type: 'string', env: 'SIMULATOR_PORT', default: '12111' },
  host: { type: 'string', env: 'SIMULATOR_HOST', default: '127.0.0.1' },
  'webhook-url': { type: 'string', env: 'SIMULATOR_WEBHOOK_URL', default: '' },
  'webhook-secret': {
    type: 'string',
    env: 'SIMULATOR_WEBHOOK_SECRET',
    default: 'whsec_local_simulator',
  },
  'webhook-payload': { type: 'string', env: 'SIMULATOR_WEBHOOK_PAYLOAD', default: 'snapshot' },
  'thin-webhook-secret': { type: 'string', env: 'SIMULATOR_THIN_WEBHOOK_SECRET', default: '' },
  'pause-on-payment-failure': {
    type: 'string',
    env: 'SIMULATOR_PAUSE_ON_PAYMENT_FAILURE',
    default: 'false',
  },
  'api-key': { type: 'string', env: 'SIMULATOR_API_KEY', default: 'sk_test_simulator' },
  prices: {
    type: 'string',
    env: 'SIMULATOR_PRICES',
    default:
      'pro=price_sim_pro,pro@year=price_sim_pro_year,team=price_sim_team,team@year=price_sim_team_year',
  },
  'one-time-prices': {
    type: 'string',
    env: 'SIMULATOR_ONE_TIME_PRICES',
    default: 'small=price_sim_credits_small,large=price_sim_credits_large',
  },
  database: { type: 'string', env: 'SIMULATOR_DATABASE_URL', default: 'memory://' },
  'allowed-hosts': { type: 'string', env: 'SIMULATOR_ALLOWED_HOSTS', default: '' },
} as const;
type Option = keyof typeof OPTIONS;

function readOptions(): Record<Option, string> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ options: { ...OPTIONS, help: { type: 'boolean' } }, strict: true }).values;
  } catch (error) {
    fail(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const entries = Object.entries(OPTIONS).map(([name, option]) => [
    name,
    (values[name] as string | undefined) ?? process.env[option.env] ?? option.default,
  ]);
  return Object.fromEntries(entries) as Record<Option, string>;
}

const options = readOptions();
const prices = parsePrices(options.prices);
const oneTimePrices = parseOneTimePrices(options['one-time-prices'], prices);
const port = parsePort(options.port);
const webhookUrl = parseWebhookUrl(options['webhook-url']);
const webhookPayload = parsePayload(options['webhook-payload']);
const pauseOnPaymentFailure = parseSwitch(
  'pause-on-payment-failure',
  options['pause-on-payment-failure'],
);
const db = await openDatabase(options.database).catch((error: Error) =>
  fail(`--database: ${error.message}`),
);
const simulator = await startPaymentsSimulator({
  db,
  host: options.host,
  port,
  apiKey: options['api-key'],
  webhookUrl: () => webhookUrl,
  webhookSecret: options['webhook-secret'],
  webhookPayload,
  thinWebhookSecret: options['thin-webhook-secret'] || undefined,
  pauseOnPaymentFailure,
  prices,
  oneTimePrices,
  allowedHosts: options['allowed-hosts']
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== ''),
  log: (message, fields) =>
    console.log(JSON.stringify({ time: new Date().toISOString(), message, ...fields })),
});
console.log(`payments simulator listening on ${simulator.url}
  API:       ${simulator.url}/v1 (key ${options['api-key']})
  dashboard: ${simulator.url}/
  webhooks:  ${webhookUrl ?? 'none (events wait; give --webhook-url)'}, ${webhookPayload} payloads signed with ${webhookPayload === 'thin' ? options['thin-webhook-secret'] || options['webhook-secret'] : options['webhook-secret']}
  prices:    ${[...prices].map(([tier, price]) => `${tier}=${price}`).join(', ')}
  one-time:  ${[...oneTimePrices].map(([pack, price]) => `${pack}=${price}`).join(', ') || 'none'}
  database:  ${options.database === 'memory://' ? 'in memory' : 'PostgreSQL'}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await simulator.close();
  await db.close();
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
