// The one place that reads the environment, described once as a schema (config/environment.ts):
// every variable at fault is named at once, one line each, and the service never starts
// half-configured.
import { buildConfig, type Config } from './config/build.ts';
import { readEntitlements } from './config/entitlements.ts';
import type { Settings } from './config/environment.ts';
import { Problems, readSettings, type Env } from './config/read.ts';
import { checkRules } from './config/rules.ts';

export * from './config/defaults.ts';
export { isLoopback } from './config/kinds.ts';
export type { Config, DatabaseConfig, ReachableDatabaseConfig } from './config/build.ts';

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.map((problem) => `Invalid configuration: ${problem}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/** `defaults` stand for variables `env` leaves unset (the CLI's quieter LOG_LEVEL). */
export function loadConfig(
  env: Env = process.env,
  defaults: Partial<Settings> = {},
): Readonly<Config> {
  const problems = new Problems();
  const settings = readSettings(env, defaults, problems);
  checkRules(settings, problems);
  const offered = readEntitlements(settings, problems);
  const refused = problems.lines();
  if (refused.length > 0) throw new ConfigError(refused);
  return Object.freeze(buildConfig(settings, offered));
}

/** An operator command's: the service's, its log level `warn` unless LOG_LEVEL says, not to bury its output. */
export const loadCliConfig = (): Readonly<Config> => loadConfig(process.env, { LOG_LEVEL: 'warn' });
