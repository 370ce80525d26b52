// The retry schedule of an outbound event: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every
// 10 h, for 3 days from the first attempt; then given up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterFailure } from '../../src/domain/events/delivery-retries.ts';

const HOUR = 3_600_000;

describe('outbound event retries', () => {
  test('12 attempts over 3 days, then failed', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    let at = start;
    const offsets: string[] = [];
    for (let attempt = 1; ; attempt++) {
      const next = afterFailure(attempt, start, at, () => 0);
      if (next.state !== 'pending') {
        assert.equal(next.state, 'failed');
        assert.equal(attempt, 12);
        break;
      }
      at = next.at;
      offsets.push(
        `${Math.floor((at.getTime() - start.getTime()) / HOUR)}h${((at.getTime() - start.getTime()) % HOUR) / 1000}s`,
      );
    }
    assert.deepEqual(offsets, [
      '0h5s',
      '0h305s',
      '0h2105s',
      '2h2105s',
      '7h2105s',
      '17h2105s',
      '27h2105s',
      '37h2105s',
      '47h2105s',
      '57h2105s',
      '67h2105s',
    ]);
  });

  test('each wait is up to a tenth longer, at random', () => {
    const now = new Date();
    const longest = afterFailure(2, now, now, () => 1);
    assert.equal(longest.state === 'pending' && longest.at.getTime() - now.getTime(), 330_000);
  });
});
