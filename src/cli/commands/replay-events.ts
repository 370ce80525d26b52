// replay-events: processes the provider's undelivered events through the same exactly-once path
// as a delivery, for when our endpoint was down longer than the provider retries. Already
// processed events come back `duplicate`, so running it twice is harmless. While the service
// runs it works on the service's database and, without PAYMENTS_API_KEY, its simulator.
import { cliConfig, type Command } from '../command.ts';

export const replayEventsCommand: Command = {
  name: 'replay-events',
  usage: '',
  summary: "process the payment provider's undelivered events (exactly once)",
  help: [
    "Lists the provider's events whose delivery to this service has not succeeded (delivery_success=false)",
    'and processes each, oldest first, as a webhook delivery would: one progress line per event on stderr,',
    'a summary on stdout. Run it while the service runs: the embedded simulator lives inside the service.',
  ].join('\n'),
  options: {},
  positionals: [],
  async run(_input, io) {
    const config = cliConfig();
    const [{ composeOperator }, { replayUndeliveredEvents }] = await Promise.all([
      import('../../composition.ts'),
      import('../../domain/webhooks/replay.ts'),
    ]);
    const composition = await composeOperator(config);
    try {
      const [payments, webhooks] = await Promise.all([
        composition.payments(),
        composition.webhooks(),
      ]);
      io.progress('fetching undelivered events from the payment provider...');
      const summary = await replayUndeliveredEvents(payments, webhooks, {
        progress: (done, total, eventId, outcome) =>
          io.progress(`[${done}/${total}] ${eventId}: ${outcome}`),
        onThrottled: (seconds) =>
          io.progress(`the payment provider is throttling us: waiting ${seconds} s as it asks`),
      });
      io.out(
        `replayed ${summary.total} event(s): ${summary.processed} processed, ${summary.duplicate} duplicate, ${summary.ignored} ignored`,
      );
    } finally {
      await composition.close();
    }
  },
};
