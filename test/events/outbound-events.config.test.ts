// The application's endpoint for outbound events, as the configuration accepts it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { refusal } from '../helpers/config-refusal.ts';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('APP_WEBHOOK_URL', () => {
  test('a URL with a user and password is refused in one line naming it, the password not shown', () => {
    const line = refusal({
      APP_WEBHOOK_URL: 'https://billing:hunter2@app.example.com/hooks',
      APP_WEBHOOK_SECRET: SECRET,
    });
    assert.match(line, /\bAPP_WEBHOOK_URL\b/);
    assert.doesNotMatch(line, /hunter2|billing:/);
  });
});
