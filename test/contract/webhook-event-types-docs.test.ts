// docs/configuration.md's table of the Stripe event types to subscribe to, and the webhook
// handlers' table, cannot drift: the same types, each in its payload style's column, and the
// local `stripe listen --thin-events` command asks for exactly the thin ones. A handler added
// without its row, or a row left after its handler went, fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { EVENT_HANDLERS } from '../../src/domain/webhooks/handlers/index.ts';

const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('### Stripe webhooks: snapshot or thin')).split('\n## ')[0]!;
/** The table's rows: its snapshot cell and its thin cell, each a type or null for `none`. */
const rows = section.split('\n').flatMap((line) => {
  const cells = /^\| (`[a-z0-9_.]+`|none) \| (`[a-z0-9_.]+`|none) \|$/.exec(line);
  const type = (cell: string) => (cell === 'none' ? null : cell.slice(1, -1));
  return cells ? [{ snapshot: type(cells[1]!), thin: type(cells[2]!) }] : [];
});
const column = (style: 'snapshot' | 'thin') =>
  rows.flatMap((row) => (row[style] === null ? [] : [row[style]]));
const handled = Object.keys(EVENT_HANDLERS);
const thinHandled = handled.filter((type) => type.startsWith('v1.'));

describe('docs/configuration.md and the webhook handlers', () => {
  test('the table names every event type a handler acts on, and no other', () => {
    assert.deepEqual([...column('snapshot'), ...column('thin')].sort(), [...handled].sort());
  });

  test('each type is in its style\'s column: thin types start with "v1."', () => {
    assert.ok(column('snapshot').every((type) => !type.startsWith('v1.')));
    assert.ok(column('thin').every((type) => type.startsWith('v1.')));
  });

  test('a thin type sits beside its snapshot counterpart', () => {
    for (const { snapshot, thin } of rows) if (thin !== null) assert.equal(thin, `v1.${snapshot}`);
  });

  test('`stripe listen --thin-events` asks for exactly the thin types handled', () => {
    const listed = /--thin-events ([a-z0-9_.,]+)/.exec(section)?.[1]?.split(',');
    assert.ok(listed, 'the section gives a `stripe listen --thin-events` command');
    assert.deepEqual([...listed].sort(), [...thinHandled].sort());
  });
});
