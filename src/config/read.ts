// The environment as the schema sees it: each variable's text trimmed (blank is unset) and
// converted to its schema's type, defaults filled in, then checked as a whole; one problem per
// variable, the first found, so every variable at fault is named once.
import Value from 'typebox/value';
import { ENVIRONMENT, type Settings, type Variable } from './environment.ts';
import { fromText, type VariableSchema } from './kinds.ts';

export type Env = Record<string, string | undefined>;

export class Problems {
  readonly #found = new Map<Variable, string>();
  add = (variable: Variable, problem: string) => {
    if (!this.#found.has(variable)) this.#found.set(variable, problem);
  };
  any = (variables: readonly Variable[]) => variables.some((variable) => this.#found.has(variable));
  /** One line per variable at fault, naming it: `PORT must be a whole number ...`. */
  lines = () => [...this.#found].map(([variable, problem]) => `${variable} ${problem}`);
}

const VARIABLES = ENVIRONMENT.properties as Record<Variable, VariableSchema>;

/** `defaults` stand for variables `env` leaves unset, before the schema's own defaults. */
export function readSettings(env: Env, defaults: Partial<Settings>, problems: Problems): Settings {
  const values: Record<string, unknown> = { ...defaults };
  for (const [name, schema] of Object.entries(VARIABLES)) {
    const given = env[name]?.trim();
    if (given) values[name] = fromText(schema, given);
  }
  const settings = Value.Default(ENVIRONMENT, values) as Settings;
  for (const error of Value.Errors(ENVIRONMENT, settings)) {
    // An error's path is /NAME, or /NAME/index for an entry of a list.
    const [, name, entry] = error.instancePath.split('/') as [string, Variable, string?];
    const { problem = error.message, secret } = VARIABLES[name];
    const bad = entry === undefined ? env[name]?.trim() : (values[name] as string[])[Number(entry)];
    // JSON-quoted, so a line break in the value keeps the message on one line.
    problems.add(name, secret ? problem : `${problem}, got ${JSON.stringify(bad)}`);
  }
  return settings;
}
