// What is wrong with a configuration: one problem per variable, the first found, so a variable the
// schema refused is not refused again by a rule, and every variable at fault is named at once.
import type { Variable } from './environment.ts';

export class Problems {
  readonly #found = new Map<Variable, string>();

  add(variable: Variable, problem: string): void {
    if (!this.#found.has(variable)) this.#found.set(variable, problem);
  }

  /** Whether one of `variables` already has a problem. */
  any(variables: readonly Variable[]): boolean {
    return variables.some((variable) => this.#found.has(variable));
  }

  /** One line per variable at fault, naming it: `PORT must be a whole number ...`. */
  lines(): string[] {
    return [...this.#found].map(([variable, problem]) => `${variable} ${problem}`);
  }
}

/** A value as a message shows it: JSON-quoted, so a line break in it keeps the message on one line. */
export const quoted = (value: unknown): string => JSON.stringify(value);
