// docs/configuration.md's table of variables and the schema of the environment cannot drift: the
// same variables, the schema's defaults as the table gives them, and a whole number's bounds and
// a choice's values in the row's meaning.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ENVIRONMENT } from '../../src/config/environment.ts';

const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('## Environment variables')).split('\n## ')[0]!;
/** Variable -> its row's default and meaning cells. */
const rows = new Map(
  section.split('\n').flatMap((line) => {
    const cells = /^\| `([A-Z_]+)` \| (.*?) \| (.*) \|$/.exec(line);
    return cells ? [[cells[1]!, { fallback: cells[2]!, meaning: cells[3]! }] as const] : [];
  }),
);
/** The JSON Schema keywords a variable's row must agree with. */
interface Documented {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: string[];
}
const schema = Object.entries(ENVIRONMENT.properties) as [string, Documented][];
const row = (name: string) => rows.get(name) ?? assert.fail(`${name} has no row`);

describe('docs/configuration.md and the schema of the environment', () => {
  test('the table has a row for each variable of the schema, and no other', () => {
    assert.deepEqual([...rows.keys()].sort(), schema.map(([name]) => name).sort());
  });

  test("a variable's default in the schema is the one in its row", () => {
    for (const [name, variable] of schema)
      if (variable.default !== undefined)
        assert.equal(row(name).fallback, `\`${String(variable.default)}\``, name);
  });

  test("a whole number's bounds and a choice's values are in its row", () => {
    for (const [name, variable] of schema) {
      if (variable.type === 'integer')
        assert.ok(row(name).meaning.includes(`${variable.minimum} to ${variable.maximum}`), name);
      for (const value of variable.enum ?? [])
        assert.ok(row(name).meaning.includes(`\`${value}\``), `${name}: ${value}`);
    }
  });
});
