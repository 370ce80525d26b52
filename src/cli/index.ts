// npm run cli -- <command> [arguments]: the operator's commands, one small file each under
// commands/. This file only dispatches: it parses the command line with node:util parseArgs,
// prints help, and turns any failure into one line on stderr and a non-zero exit
// (1: the command failed, 2: the command line was wrong).
import { parseArgs } from 'node:util';
import { UsageError, type Command, type CommandInput, type CommandIo } from './command.ts';
import { creditsCommand } from './commands/credits.ts';
import { eventsCommand } from './commands/events.ts';
import { linkCustomerCommand } from './commands/link-customer.ts';
import { migrateCommand } from './commands/migrate.ts';
import { reconcileCommand } from './commands/reconcile.ts';
import { replayEventsCommand } from './commands/replay-events.ts';
import { setPlanCommand } from './commands/set-plan.ts';
import { syncUserCommand } from './commands/sync-user.ts';
import { tokenCommand } from './commands/token.ts';

const PROGRAM = 'npm run cli --';
const COMMANDS: readonly Command[] = [
  migrateCommand,
  tokenCommand,
  setPlanCommand,
  syncUserCommand,
  reconcileCommand,
  linkCustomerCommand,
  replayEventsCommand,
  eventsCommand,
  creditsCommand,
];

const usageLine = (command: Command) =>
  `${PROGRAM} ${command.name}${command.usage === '' ? '' : ` ${command.usage}`}`;

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `usage: ${PROGRAM} <command> [arguments]`,
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`${PROGRAM} <command> --help\` for a command's arguments. They read the service's`,
    'environment variables (DATABASE_URL, PAYMENTS_API_KEY, BILLING_PRICES, ...), as `npm start` does.',
  ].join('\n');
}

const commandHelp = (command: Command) =>
  `usage: ${usageLine(command)}\n\n${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.\n${command.help}`;

/** A negative number (`credits adjust ... -20`) is an argument, never an option: put after `--`. */
function negativeNumbersLast(args: string[]): string[] {
  if (args.includes('--')) return args;
  const negative = (arg: string) => /^-[0-9]+$/.test(arg);
  const numbers = args.filter(negative);
  return numbers.length === 0 ? args : [...args.filter((arg) => !negative(arg)), '--', ...numbers];
}

function parse(command: Command, args: string[]): CommandInput & { help: boolean } {
  try {
    const { values, positionals } = parseArgs({
      args: negativeNumbersLast(args),
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    const { help, ...rest } = values as Record<string, string | boolean | undefined>;
    return { values: rest, positionals, help: help === true };
  } catch (error) {
    throw new UsageError((error as Error).message, command.name);
  }
}

async function runCommand(command: Command, args: string[], io: CommandIo): Promise<void> {
  const input = parse(command, args);
  if (input.help) return io.out(commandHelp(command));
  const missing = command.positionals.slice(input.positionals.length);
  if (missing.length > 0)
    throw new UsageError(
      `missing <${missing.join('> <')}> (usage: ${usageLine(command)})`,
      command.name,
    );
  const extra =
    input.positionals[command.positionals.length + (command.optionalPositionals?.length ?? 0)];
  if (extra !== undefined)
    throw new UsageError(
      `unexpected argument ${JSON.stringify(extra)} (usage: ${usageLine(command)})`,
      command.name,
    );
  try {
    await command.run(input, io);
  } catch (error) {
    throw error instanceof UsageError && error.command === undefined
      ? new UsageError(error.message, command.name)
      : error;
  }
}

async function dispatch(argv: string[], io: CommandIo): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined)
    throw new UsageError(`no command given; commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = COMMANDS.find((c) => c.name === rest[0]);
    return io.out(topic ? commandHelp(topic) : overview());
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined)
    throw new UsageError(
      `unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.map((c) => c.name).join(', ')}`,
    );
  return runCommand(command, rest, io);
}

/** Runs one command line; resolves to the exit code. */
async function main(argv: string[], io: CommandIo): Promise<number> {
  try {
    await dispatch(argv, io);
    return 0;
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /\s*\n\s*/g,
      ' ',
    );
    if (error instanceof UsageError) {
      const where = error.command === undefined ? PROGRAM : `${PROGRAM} ${error.command}`;
      io.progress(
        `error: ${error.command === undefined ? '' : `${error.command}: `}${message}${message.includes('usage:') ? '' : ` (see \`${where} --help\`)`}`,
      );
      return 2;
    }
    io.progress(`error: ${message}`);
    return 1;
  }
}

const io: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  progress: (line) => process.stderr.write(`${line}\n`),
};
// Exit explicitly: a command that failed half-way may leave a connection open.
process.exit(await main(process.argv.slice(2), io));
