// The one place that reads the environment. It is described once, as a schema
// (config/environment.ts), with the rules between variables after it (config/rules.ts); every
// variable at fault is named at once, one line each, and the service never starts half-configured.
import { buildConfig } from './config/build.ts';
import { readEntitlements } from './config/entitlements.ts';
import type { Settings } from './config/environment.ts';
import { Problems } from './config/problems.ts';
import { readSettings, type Env } from './config/read.ts';
import { checkRules } from './config/rules.ts';
import type { Config } from './config/types.ts';

export {
  DEV_IDP_AUDIENCE,
  DEV_ORG_CLAIMS,
  DEV_SERVICE_CLIENT,
  EXAMPLE_ENTITLEMENTS_FILE,
  SIMULATOR_API_KEY,
  SIMULATOR_PRICES,
  SIMULATOR_WEBHOOK_SECRET,
} from './config/defaults.ts';
export { isLoopback } from './config/kinds.ts';

export type * from './config/types.ts';

/** A configuration refused: one line per variable at fault, each naming it. */
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

/**
 * The configuration for an operator command: the service's own, from the same variables, with
 * the log level lowered to `warn` unless LOG_LEVEL says otherwise, so JSON log lines do not bury
 * the command's output.
 */
export const loadCliConfig = (): Readonly<Config> => loadConfig(process.env, { LOG_LEVEL: 'warn' });
