// npm run payments:replay: fetches the provider's events whose delivery never succeeded and runs
// each through the same exactly-once path as a delivery (for when the endpoint was down longer
// than the provider retries). Already processed events come back `duplicate` and change nothing.
// On the embedded defaults, stop `npm start` first: PGlite is single-process.
import { compose } from '../composition.ts';
import { loadConfig } from '../config.ts';

try {
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const composition = await compose(config);
  const { payments, webhooks } = composition.services;
  const events = await payments.undeliveredEvents();
  console.log(`${events.length} undelivered event(s)`);
  const counts: Record<string, number> = {};
  for (const [index, event] of events.entries()) {
    const outcome = await webhooks.process(event);
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    console.log(`[${index + 1}/${events.length}] ${event.id} ${event.type}: ${outcome}`);
  }
  console.log(`done: ${JSON.stringify(counts)}`);
  await composition.close();
} catch (error) {
  console.error(`replay failed: ${(error as Error).message}`);
  process.exit(1);
}
