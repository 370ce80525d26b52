// npm run payments:replay: processes the provider's undelivered events through the same
// exactly-once path as a delivery. Already processed events come back `duplicate`.
// On the embedded defaults, stop `npm start` first: PGlite is single-process.
import { compose } from '../composition.ts';
import { loadConfig } from '../config.ts';
import { replayUndeliveredEvents } from '../domain/webhooks/replay.ts';

try {
  const composition = await compose(loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }));
  const { payments, webhooks } = composition.services;
  const summary = await replayUndeliveredEvents(payments, webhooks, (done, total, eventId, outcome) => console.log(`[${done}/${total}] ${eventId}: ${outcome}`));
  console.log(`replayed ${summary.total} event(s): ${summary.processed} processed, ${summary.duplicate} duplicate, ${summary.ignored} ignored`);
  await composition.close();
} catch (error) {
  console.error(`replay failed: ${(error as Error).message}`);
  process.exit(1);
}
