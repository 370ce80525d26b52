// The part of oidc-provider's API the test issuer uses (the package ships no types).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ResourceServer {
    scope: string;
    audience: string;
    accessTokenFormat: 'jwt' | 'opaque';
    jwt?: { sign: { alg: string } };
  }

  export interface Configuration {
    clients: Record<string, unknown>[];
    jwks: { keys: Record<string, unknown>[] };
    features: Record<string, unknown>;
    extraTokenClaims?: (
      ctx: unknown,
      token: { clientId?: string; accountId?: string },
    ) => Promise<Record<string, unknown> | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
