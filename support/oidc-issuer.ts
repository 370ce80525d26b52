// A small but real OpenID Connect issuer on 127.0.0.1 (node:http, a free port): discovery, a JWKS
// and userinfo, each of which can be counted and taken down, with key rotation. The service talks
// to it over HTTP exactly as it would to Auth0 or Keycloak, so tests and the benchmark exercise
// the real fetching, caching and verification code. (support/ holds what test/ and bench/ share;
// neither imports the other.)
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { generateSigningKey, type SigningKey } from '../src/dev/signing-key.ts';
import { jwksOf, signToken } from '../src/dev/identity-provider.ts';

export type IssuerEndpoint = 'discovery' | 'jwks' | 'userinfo';

const PATHS: Record<string, IssuerEndpoint> = {
  '/.well-known/openid-configuration': 'discovery',
  '/.well-known/jwks.json': 'jwks',
  '/userinfo': 'userinfo',
};

export interface IssuerTokenOptions {
  /** The e-mail claim's value; null leaves the claim out. Default `<sub>@example.com`. */
  email?: string | null;
  /** Name of the e-mail claim. Default `email`. */
  emailClaim?: string;
  /** Signing key; default the current one. */
  key?: SigningKey;
  audience?: string;
  ttlSeconds?: number;
  /** Further claims (nbf, a namespaced claim, ...). */
  extra?: Record<string, unknown>;
}

export interface OidcTestIssuer {
  /** The issuer identifier (`iss`), also its base URL. */
  readonly url: string;
  readonly jwksUrl: string;
  readonly audience: string;
  /** The key new tokens are signed with. */
  readonly key: SigningKey;
  /** Requests each endpoint has received, answered or not. */
  fetches(endpoint: IssuerEndpoint): number;
  /** A down endpoint answers 503. */
  setDown(endpoint: IssuerEndpoint, down: boolean): void;
  /** Publishes a new signing key and signs with it from now on; the old key stays published unless dropOld. */
  rotate(options?: { dropOld?: boolean }): Promise<SigningKey>;
  /** What /userinfo answers for a subject: its e-mail, or none with null. Default `<sub>@example.com`. */
  setUserinfoEmail(sub: string, email: string | null): void;
  token(sub: string, options?: IssuerTokenOptions): Promise<string>;
  close(): Promise<void>;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startOidcIssuer(
  options: {
    audience?: string;
    /** Its signing keys' algorithm; by default the development issuer's. */
    algorithm?: string;
  } = {},
): Promise<OidcTestIssuer> {
  const audience = options.audience ?? 'api://billing';
  const newKey = () => generateSigningKey(options.algorithm);
  let published: SigningKey[] = [await newKey()];
  const counts = new Map<IssuerEndpoint, number>();
  const down = new Set<IssuerEndpoint>();
  const userinfoEmails = new Map<string, string | null>();
  let url = '';

  async function userinfo(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    try {
      const { payload } = await jwtVerify(token ?? '', createLocalJWKSet(jwksOf(...published)), {
        issuer: url,
        audience,
      });
      const sub = payload.sub!;
      const email = userinfoEmails.has(sub) ? userinfoEmails.get(sub) : `${sub}@example.com`;
      send(response, 200, { sub, ...(email === null ? {} : { email, email_verified: true }) });
    } catch {
      send(response, 401, { error: 'invalid_token' });
    }
  }

  const server = createServer((request, response) => {
    const endpoint = PATHS[new URL(request.url ?? '/', url).pathname];
    if (endpoint === undefined) return send(response, 404, { error: 'not_found' });
    counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
    if (down.has(endpoint)) return send(response, 503, { error: 'unavailable' });
    if (endpoint === 'jwks') return send(response, 200, jwksOf(...published));
    if (endpoint === 'userinfo') return void userinfo(request, response);
    send(response, 200, {
      issuer: url,
      jwks_uri: `${url}/.well-known/jwks.json`,
      userinfo_endpoint: `${url}/userinfo`,
      id_token_signing_alg_values_supported: ['ES256'],
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    jwksUrl: `${url}/.well-known/jwks.json`,
    audience,
    get key() {
      return published[0]!;
    },
    fetches: (endpoint) => counts.get(endpoint) ?? 0,
    setDown(endpoint, isDown) {
      if (isDown) down.add(endpoint);
      else down.delete(endpoint);
    },
    async rotate({ dropOld = false } = {}) {
      const next = await newKey();
      published = dropOld ? [next] : [next, ...published];
      return next;
    },
    setUserinfoEmail: (sub, email) => void userinfoEmails.set(sub, email),
    token(
      sub,
      { email = `${sub}@example.com`, emailClaim = 'email', key = published[0]!, ...rest } = {},
    ) {
      const extra = { ...rest.extra, ...(email === null ? {} : { [emailClaim]: email }) };
      return signToken(key, {
        sub,
        issuer: url,
        audience: rest.audience ?? audience,
        ttlSeconds: rest.ttlSeconds,
        extra,
      });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
