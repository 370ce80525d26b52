// events: the outbound events the application is sent. `list` shows the newest (with --failed,
// those given up), each with its state, attempts and last answer; `resend <id>` sends one again
// from now, with its own id and body, whatever its state (the receiver deduplicates on the id).
import { UsageError, cliConfig, type Command } from '../command.ts';
import type { EventSummary } from '../../domain/ports/outbox.ts';

const LIMIT = 100;

const line = (e: EventSummary): string => {
  const last = e.last === null ? 'no attempt yet' : `last answer ${e.last.status ?? 'none'}`;
  const next = e.nextAttemptAt === null ? '' : `, next attempt ${e.nextAttemptAt.toISOString()}`;
  const answer = e.last?.answer ? ` ${JSON.stringify(e.last.answer.slice(0, 80))}` : '';
  return `${e.id} ${e.type} ${e.subject.type} ${e.subject.id} ${e.createdAt.toISOString()} ${e.state} (${e.attempts} attempt(s), ${last}${next})${answer}`;
};

export const eventsCommand: Command = {
  name: 'events',
  usage: 'list [--failed] | resend <id>',
  summary: 'list the outbound events sent to the application, or send one again',
  help: [
    `list: the newest ${LIMIT} events, one line each: id, type, subject, time, state (pending, delivered,`,
    '  failed), attempts and the last answer. --failed: only those given up after 3 days of retries.',
    'resend <id>: sends that event again from now, with the same webhook-id and body, retried for',
    '  3 days as a new one is. Runs beside the service: its workers deliver it within seconds.',
  ].join('\n'),
  options: { failed: { type: 'boolean' } },
  positionals: ['list|resend'],
  optionalPositionals: ['id'],
  async run(input, io) {
    const [action, id] = input.positionals;
    if (action !== 'list' && action !== 'resend')
      throw new UsageError(`unknown action ${JSON.stringify(action)}: list or resend`);
    if (action === 'resend' && id === undefined) throw new UsageError('resend needs <id>');
    if (action === 'list' && id !== undefined)
      throw new UsageError(`unexpected argument ${JSON.stringify(id)}`);
    const { composeOperator } = await import('../../composition.ts');
    const composition = await composeOperator(cliConfig());
    try {
      if (action === 'list') {
        const events = await composition.outbox.list({
          failed: input.values.failed === true,
          limit: LIMIT,
        });
        for (const event of events) io.out(line(event));
        if (events.length === 0)
          io.progress(input.values.failed ? 'no failed events' : 'no events');
        return;
      }
      if (!(await composition.outbox.resend(id!, new Date())))
        throw new Error(`no outbound event ${id}`);
      io.out(`${id} will be sent again`);
    } finally {
      await composition.close();
    }
  },
};
