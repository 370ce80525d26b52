// The banner `npm start` prints in development says how to get a token: bare `npm run token` for
// the development user, another user's, and an organisation admin's; with a real issuer none.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { banner } from '../../src/process/banner.ts';

const facts = {
  url: 'http://127.0.0.1:8000',
  simulatorUrl: 'http://127.0.0.1:12111',
  devIdentity: true,
  database: 'embedded PostgreSQL in /data',
};

describe('the development banner', () => {
  test('bare npm run token is for dev-user; another user and a team admin are one option away', () => {
    const lines = banner(facts).split('\n');
    assert.ok(
      lines.includes('    Get a token       npm run token  (for the user dev-user)'),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((line) => line.endsWith('npm run token -- --sub alice --email alice@example.com')),
    );
    assert.ok(
      lines.some((line) => line.endsWith('npm run token -- --sub alice --org acme --role admin')),
    );
  });

  test('with a real identity provider the banner mints nothing', () => {
    assert.doesNotMatch(banner({ ...facts, devIdentity: false }), /npm run token/);
  });
});
