// buildTestApp(): the production buildApp and composition, on a fresh database (PGlite in memory
// or a new PostgreSQL database), with the development identity provider minting real tokens.
// Its app.inject checks every response of a documented operation against /openapi.json
// (openapi-contract.ts): a status or body the document does not describe fails the test.
import { rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { composeService, type Composition } from '../../src/composition.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { devIssuerUrl, signToken, type TokenClaims } from '../../src/dev/identity-provider.ts';
import { loadOrCreateSigningKey } from '../../src/dev/signing-key.ts';
import { createTestDatabase } from './database.ts';
import { checkInjectedResponses } from './openapi-contract.ts';
import { freshDataDir } from './data-dir.ts';

export interface TestApp {
  app: FastifyInstance;
  config: Readonly<Config>;
  composition: Composition;
  /** The service's environment, to start more processes on the same database. */
  env: Record<string, string>;
  token(sub: string, email?: string, claims?: Partial<TokenClaims>): Promise<string>;
  close(): Promise<void>;
}

export async function buildTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const dataDir = freshDataDir('billing-test');
  const fullEnv = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    PAYMENTS_SIMULATOR_PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    ...env,
  };
  const config = loadConfig(fullEnv);
  const composition = await composeService(config);
  const app = await buildApp(composition, { logger: composition.logger });
  await checkInjectedResponses(app);
  const key = await loadOrCreateSigningKey(dataDir);
  return {
    app,
    config,
    composition,
    env: fullEnv,
    token: (sub, email = `${sub}@example.com`, claims = {}) =>
      signToken(key, {
        sub,
        email,
        issuer: devIssuerUrl(config.host, config.port),
        audience: config.identity.audience,
        ...claims,
      }),
    async close() {
      await app.close();
      await composition.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The profile of the user with this subject (GET /users/me, which makes it if it is new). */
export const profileOf = async (t: TestApp, sub: string) =>
  (
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: bearer(await t.token(sub)),
    })
  ).json();

/** The id of the user with this subject, made if it is new. */
export const profileId = async (t: TestApp, sub: string): Promise<string> =>
  (await profileOf(t, sub)).id as string;

/**
 * Listens on a free loopback port and has the embedded simulator deliver its events there, signed,
 * as under `npm start`: a payment or a click in the simulator then reaches the service by itself.
 */
export async function deliverWebhooks(t: TestApp): Promise<void> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  t.composition.setServiceUrl(`http://127.0.0.1:${port}`);
}
