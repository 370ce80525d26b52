// The composition root: the only place that chooses implementations (PGlite or PostgreSQL,
// development issuer or real OIDC) and wires them into the services buildApp serves.
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from './app.ts';
import type { Config } from './config.ts';
import { openMigratedDatabase } from './adapters/database/open.ts';
import { createStore } from './adapters/database/store.ts';
import type { Database } from './adapters/database/sql-client.ts';
import { createJwtVerifier } from './adapters/identity/jwt-verifier.ts';
import { connectOidcIssuer } from './adapters/identity/oidc-issuer.ts';
import { devIssuerUrl, loadOrCreateSigningKey, localKeys } from './dev/identity-provider.ts';
import { devIdentityProviderRoutes } from './dev/identity-provider-routes.ts';
import type { TierPolicy } from './domain/billing/tier.ts';
import type { TokenVerifier } from './domain/ports.ts';
import { UserService } from './domain/users/user-service.ts';

export interface Composition {
  services: Services;
  db: Database;
  migrationsApplied: string[];
  close(): Promise<void>;
}

interface Identity {
  verifier: TokenVerifier;
  devRoutes: FastifyPluginAsync[];
}

async function composeIdentity(config: Config): Promise<Identity> {
  const { identity } = config;
  if (identity.kind === 'oidc') {
    const issuer = connectOidcIssuer(identity.issuer, identity.jwksUrl);
    const verifier = createJwtVerifier({ ...identity, keys: issuer.keys, fetchEmail: issuer.fetchEmail });
    return { verifier, devRoutes: [] };
  }
  const key = await loadOrCreateSigningKey(config.dataDir);
  const issuer = devIssuerUrl(config.host, config.port);
  const verifier = createJwtVerifier({ issuer, audience: identity.audience, keys: localKeys(key), emailClaim: identity.emailClaim });
  return { verifier, devRoutes: [devIdentityProviderRoutes(issuer, key)] };
}

export function tierPolicy(config: Config): TierPolicy {
  const tierByPrice = new Map([...config.prices].map(([tier, price]) => [price, tier]));
  return { tierByPrice, graceDays: config.graceDays };
}

export async function compose(config: Config): Promise<Composition> {
  const { db, applied } = await openMigratedDatabase(config.database);
  const store = createStore(db);
  const identity = await composeIdentity(config);
  const policy = tierPolicy(config);
  const services: Services = {
    store,
    verifier: identity.verifier,
    users: new UserService(store, policy),
    devRoutes: identity.devRoutes,
  };
  return { services, db, migrationsApplied: applied, close: () => db.close() };
}
