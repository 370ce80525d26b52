// The payment-provider simulator: a Stripe-compatible HTTP server that the official `stripe` SDK
// talks to instead of Stripe. It serves a subset of the REST API (customers, subscription and
// one-time checkout, subscriptions, invoices, payment intents, charges, refunds, events, billing
// portal), a hosted checkout page, a billing portal and a dashboard with lifecycle controls, and
// delivers signed webhooks at least once.
// State lives in sim_* tables of the given database: on PostgreSQL it survives a restart; in
// PGlite's memory (`memory://`) it is gone when the process ends.
import { SimClock } from './clock.ts';
import type { SimContext } from './context.ts';
import { createDelivery, type Delivery, type Log } from './delivery.ts';
import type { SimEvent } from './events.ts';
import { localOrigin } from './local-origin.ts';
import { seedCatalog } from './objects/catalog.ts';
import { seedOneTimePrices } from './objects/one-time-prices.ts';
import { seedOffers } from './objects/offers.ts';
import { seedPortalConfiguration } from './objects/portal-configurations.ts';
import { NoticeBoard } from './pages/notice-board.ts';
import { buildSimulatorServer } from './server.ts';
import { ensureSchema } from './schema.ts';
import type { SimSettings, WebhookPayload } from './settings.ts';
import type { SimulatorDatabase } from './sql-client.ts';
import { Documents } from './store.ts';
import { thinEventOf } from './thin-events.ts';

export { openDatabase, type OwnDatabase } from './database.ts';
export type { SimulatorDatabase, SqlClient, SqlParam } from './sql-client.ts';
export { signatureHeader } from './webhook-request.ts';
export type { SimSettings, WebhookPayload } from './settings.ts';

export interface PaymentsSimulatorOptions {
  /** PGlite or PostgreSQL (openDatabase(), or the host's own client); the state goes in sim_* tables there. */
  db: SimulatorDatabase;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The only accepted `Authorization: Bearer` key, e.g. 'sk_test_simulator'. */
  apiKey: string;
  /** Where events are delivered; null while not known yet (events wait). */
  webhookUrl: () => string | null;
  /** The webhook signing secret, e.g. 'whsec_local_simulator'. */
  webhookSecret: string;
  /** What the endpoint receives: v1 snapshot events (the default) or thin v2 notifications. */
  webhookPayload?: WebhookPayload;
  /** The secret thin notifications are signed with (an event destination has its own); default webhookSecret. */
  thinWebhookSecret?: string;
  /** Pause a subscription whose renewal payment fails, instead of leaving it past_due (default false). */
  pauseOnPaymentFailure?: boolean;
  /**
   * What it sells: `tier`, `tier@month` or `tier@year` -> price id, as BILLING_PRICES names them;
   * each tier a product, each entry a USD price of it (pro 15.00 a month, team 49.00, others
   * 10.00; a year ten months' worth).
   */
  prices: ReadonlyMap<string, string>;
  /**
   * The one-time prices it sells (credit packs): pack name -> price id, each a product
   * ("Credits: small") with a USD price (small 9.00, large 35.00, others 10.00); none by default.
   */
  oneTimePrices?: ReadonlyMap<string, string>;
  /** Delivery retry backoff; the last delay repeats until 3 days have passed. */
  retryDelaysMs?: number[];
  log?: (message: string, fields?: object) => void;
  /** Host names it answers to besides IP addresses and localhost (DNS rebinding: host-check.ts). */
  allowedHosts?: readonly string[];
}

export interface PaymentsSimulator {
  url: string;
  close(): Promise<void>;
}

const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000];

/** Each event as the settings say when it goes out: itself, or its thin notification. */
function deliveryOf(options: PaymentsSimulatorOptions, settings: SimSettings, log: Log): Delivery {
  const thinSecret = options.thinWebhookSecret ?? options.webhookSecret;
  return createDelivery({
    db: options.db,
    webhookUrl: options.webhookUrl,
    secret: options.webhookSecret,
    render: (event) =>
      settings.webhookPayload === 'thin'
        ? { body: JSON.stringify(thinEventOf(JSON.parse(event) as SimEvent)), secret: thinSecret }
        : { body: event, secret: options.webhookSecret },
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    log,
  });
}

export async function startPaymentsSimulator(
  options: PaymentsSimulatorOptions,
): Promise<PaymentsSimulator> {
  const log = options.log ?? (() => {});
  await ensureSchema(options.db);
  const docs = new Documents(options.db);
  await seedCatalog(docs, options.prices);
  await seedOneTimePrices(docs, options.oneTimePrices ?? new Map());
  await seedPortalConfiguration(docs);
  await seedOffers(docs);
  const settings: SimSettings = {
    webhookPayload: options.webhookPayload ?? 'snapshot',
    pauseOnPaymentFailure: options.pauseOnPaymentFailure ?? false,
  };
  const delivery = deliveryOf(options, settings, log);
  const clock = new SimClock();
  await clock.load(options.db);
  const ctx: SimContext = {
    db: options.db,
    docs,
    clock,
    apiKey: options.apiKey,
    delivery,
    settings,
    log,
    baseUrl: '',
    webhookUrl: options.webhookUrl,
    notices: new NoticeBoard(),
  };
  const app = await buildSimulatorServer(ctx, options.allowedHosts);
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  ctx.baseUrl = localOrigin(
    options.host,
    typeof address === 'object' && address !== null ? address.port : options.port,
  );
  await delivery.start();
  log('payments simulator listening', { url: ctx.baseUrl });
  let closing: Promise<void> | null = null;
  return {
    url: ctx.baseUrl,
    close() {
      closing ??= (async () => {
        await delivery.close();
        await app.close();
      })();
      return closing;
    },
  };
}
