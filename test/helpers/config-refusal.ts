// What loadConfig refuses a setting with: a ConfigError whose message is one line, naming the
// variable at fault.
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** The one line loadConfig refuses `env` with; fails when it accepts it. */
export function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

/** loadConfig refuses `env` in one line naming `variable`. */
export function assertRefused(env: Record<string, string>, variable: string): void {
  assert.match(refusal(env), new RegExp(`\\b${variable}\\b`));
}
