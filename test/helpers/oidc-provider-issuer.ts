// panva's oidc-provider (a certified OpenID Provider) as a real issuer beside the stand-in of
// support/oidc-issuer.ts: client-credentials grants with resource indicators (RFC 8707) give RFC 9068
// `at+jwt` access tokens for one resource (audience), signed with an ES256 key it publishes. The
// e-mail (and any further claims, an organisation's say) goes into the access token through
// `extraTokenClaims`, as the README tells operators.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface RealIssuer {
  url: string;
  /** An access token for `resource`, from the token endpoint, as a machine client gets it. */
  accessToken(resource: string): Promise<string>;
  close(): Promise<void>;
}

const CLIENT = {
  client_id: 'billing-test-client',
  client_secret: 'billing-test-client-secret-0123456789',
};

export async function startOidcProvider(
  resources: string[],
  email: (clientId: string) => string | undefined,
  claims: (clientId: string) => Record<string, unknown> = () => ({}),
): Promise<RealIssuer> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(url, {
    clients: [
      {
        ...CLIENT,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: {
      keys: [{ ...(await exportJWK(privateKey)), kid: 'test-es256', alg: 'ES256', use: 'sig' }],
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (!resources.includes(resource)) throw new Error(`unknown resource ${resource}`);
          return {
            scope: 'billing',
            audience: resource,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    extraTokenClaims: async (_ctx, token) => {
      if (token.clientId === undefined) return undefined;
      const address = email(token.clientId);
      return { ...claims(token.clientId), ...(address === undefined ? {} : { email: address }) };
    },
  });
  server.on('request', provider.callback());
  return {
    url,
    async accessToken(resource) {
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${CLIENT.client_id}:${CLIENT.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'billing' }),
      });
      const body = (await response.json()) as { access_token?: string; error_description?: string };
      if (!response.ok || body.access_token === undefined)
        throw new Error(`token endpoint answered ${response.status}: ${body.error_description}`);
      return body.access_token;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
