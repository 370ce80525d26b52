// Which way a delivery looks for its record follows the recent share of redeliveries: mostly new
// events go straight into their transaction, a run of redeliveries switches to a read first, and
// new events switch it back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RedeliveryShare } from '../../src/adapters/database/redelivery-share.ts';

const observeMany = (share: RedeliveryShare, redelivery: boolean, times: number) => {
  for (let i = 0; i < times; i++) share.observe(redelivery);
};

describe('redelivery share', () => {
  test('starts out expecting new events', () => {
    assert.equal(new RedeliveryShare().mostlyRedeliveries, false);
  });

  test('a run of redeliveries switches to a read first, a run of new events switches back', () => {
    const share = new RedeliveryShare();
    observeMany(share, true, 10);
    assert.equal(
      share.mostlyRedeliveries,
      false,
      'ten redeliveries are not yet most of the recent past',
    );
    observeMany(share, true, 10);
    assert.equal(share.mostlyRedeliveries, true);
    observeMany(share, false, 4);
    assert.equal(share.mostlyRedeliveries, true, 'a few new events do not undo a replay');
    observeMany(share, false, 10);
    assert.equal(share.mostlyRedeliveries, false);
  });

  test('an even mix keeps whichever way was in use: no switching back and forth', () => {
    const fresh = new RedeliveryShare();
    const afterReplay = new RedeliveryShare();
    observeMany(afterReplay, true, 30);
    for (let i = 0; i < 101; i++) {
      fresh.observe(i % 2 === 0);
      afterReplay.observe(i % 2 === 0);
      assert.equal(fresh.mostlyRedeliveries, false);
      assert.equal(afterReplay.mostlyRedeliveries, true);
    }
  });
});
