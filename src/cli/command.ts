// What a CLI command is: a name, its help, the options node:util parseArgs reads for it, and run().
// Results go to stdout (so `$(npm run -s token ...)` captures just the token); progress goes to
// stderr. A command throws to fail: the dispatcher prints one line and exits non-zero.
// Commands import the database, the provider and the composition inside run(), so `--help` and
// `token` start without loading them.
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';

export interface CommandInput {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export interface CommandIo {
  /** A line of the command's result, on stdout. */
  out(line: string): void;
  /** A line of progress, on stderr. */
  progress(line: string): void;
}

export interface Command {
  name: string;
  /** Arguments after the command name, e.g. `<idp_id> <plan>`. */
  usage: string;
  /** One line, for the command list. */
  summary: string;
  /** Further lines for `<command> --help`: what it does and each option. */
  help: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** Names of the required positional arguments, in order. */
  positionals: string[];
  run(input: CommandInput, io: CommandIo): Promise<void>;
}

/** The command line itself is wrong: exit code 2 and a pointer to the help of `command`, if known. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/** The option's text, or null when it is not given; given empty, a usage error. */
export function optionalOption(input: CommandInput, name: string): string | null {
  const value = input.values[name];
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`--${name} must not be empty`);
  return value;
}

/** The configuration an operator command runs on: the service's own, its log level lowered. */
export { loadCliConfig as cliConfig } from '../config.ts';

/**
 * The issuer an operator's `--org <idp_org_id>` is read under: organisations are keyed by the
 * identity provider that names them (IDP_ISSUER, or the development provider's).
 */
export function organizationIssuer(config: Readonly<Config>): string {
  if (config.organizations === null)
    throw new UsageError('--org needs organisations: IDP_ORG_CLAIM is unset');
  return config.organizations.issuer;
}
