// Every 401 leaves its reason in the service's log (expired, wrong issuer beside the expected one,
// wrong audience, unknown key, bad signature, no e-mail and what userinfo said, no credentials), and
// never the token. The real service process, a real local issuer, real signed tokens; the log is
// read as an operator would.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey } from '../../src/dev/signing-key.ts';
import { signToken } from '../../src/dev/identity-provider.ts';
import { databaseLabel, onceInTheSuite } from '../helpers/database.ts';
import { startOidcIssuer, type OidcTestIssuer } from '../../support/oidc-issuer.ts';
import {
  startServiceProcess,
  type LogEntry,
  type ServiceProcess,
} from '../helpers/service-process.ts';
import { freshDataDir } from '../helpers/data-dir.ts';
import { requestLogged } from '../helpers/request-log.ts';

type Entry = LogEntry & { reason?: string };

describe(`the reason of every 401 is logged (${databaseLabel})`, onceInTheSuite, () => {
  let issuer: OidcTestIssuer;
  let service: ServiceProcess;
  let dataDir: string;
  before(async () => {
    issuer = await startOidcIssuer();
    dataDir = freshDataDir('billing-refusal-log');
    service = await startServiceProcess({
      NODE_ENV: 'test',
      DATABASE_URL: 'memory://',
      DATA_DIR: dataDir,
      PAYMENTS_SIMULATOR_PORT: '0',
      IDP_ISSUER: issuer.url,
      IDP_AUDIENCE: issuer.audience,
    });
  });
  after(async () => {
    await service.stop();
    await issuer.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Sends the request with that Authorization header, and returns the reason logged for it. */
  async function refusalReason(authorization: string | undefined): Promise<string | undefined> {
    const response = await fetch(`${service.url}/api/v1/users/me`, {
      headers: authorization === undefined ? {} : { authorization },
    });
    assert.equal(response.status, 401);
    const lines = await requestLogged<Entry>(service, response);
    return lines.find((entry) => entry.msg === 'authentication refused')?.reason;
  }

  const tokens: string[] = [];
  const bearer = async (token: Promise<string>) => {
    tokens.push(await token);
    return `Bearer ${tokens.at(-1)}`;
  };

  const cases: [name: string, authorization: () => Promise<string | undefined>, reason: RegExp][] =
    [
      ['no Authorization header', async () => undefined, /no Authorization header/],
      ['a Basic scheme', async () => 'Basic YWxhZGRpbjpvcGVuc2VzYW1l', /not Bearer/],
      ['expired', () => bearer(issuer.token('alice', { ttlSeconds: -120 })), /expired/],
      [
        'wrong audience',
        () => bearer(issuer.token('alice', { audience: 'api://someone-else' })),
        /wrong audience.*api:\/\/someone-else/,
      ],
      [
        'wrong issuer',
        () =>
          bearer(
            signToken(issuer.key, {
              sub: 'alice',
              email: 'a@example.com',
              issuer: 'https://evil.example/',
              audience: issuer.audience,
            }),
          ),
        /wrong issuer.*evil\.example/,
      ],
      [
        "another issuer's token, signed by its own key (another DATA_DIR's development issuer)",
        async () =>
          bearer(
            signToken(await generateSigningKey(), {
              sub: 'alice',
              email: 'a@example.com',
              issuer: 'http://127.0.0.1:8000/dev/idp',
              audience: issuer.audience,
            }),
          ),
        // Named before any key is looked up: not "unknown signing key".
        /^wrong issuer: token says "http:\/\/127\.0\.0\.1:8000\/dev\/idp", expected "http:\/\/127\.0\.0\.1:\d+[^"]*"$/,
      ],
      [
        'unknown key',
        async () => bearer(issuer.token('alice', { key: await generateSigningKey() })),
        /unknown signing key/,
      ],
      [
        'bad signature',
        async () =>
          bearer(
            issuer
              .token('alice')
              .then((t) => t.slice(0, -4) + (t.endsWith('AAAA') ? 'BBBB' : 'AAAA')),
          ),
        /bad signature/,
      ],
      [
        'no e-mail, userinfo has none',
        async () => {
          issuer.setUserinfoEmail('noemail', null);
          return bearer(issuer.token('noemail', { email: null }));
        },
        /no "email" claim and userinfo answered without an e-mail/,
      ],
      [
        'no e-mail, userinfo down',
        async () => {
          issuer.setDown('userinfo', true);
          return bearer(issuer.token('downinfo', { email: null }));
        },
        /no "email" claim and userinfo answered 503/,
      ],
    ];

  for (const [name, authorization, reason] of cases) {
    test(name, async () =>
      assert.match((await refusalReason(await authorization())) ?? 'no reason logged', reason),
    );
  }

  test('no token ever appears in the log', () => {
    const log = service.output.join('\n');
    for (const token of tokens)
      assert.ok(!log.includes(token.split('.')[2]!), 'a token signature was logged');
  });
});
