// Development only: who is signed in on the `/billing` pages, and what their last form post came
// to. A person pastes a development token once; it is kept in a cookie that only these pages
// receive (Path=/billing, HttpOnly, SameSite=Strict, until the token expires) and verified on every
// use exactly as the API verifies a bearer token, so checkout, portal and a new checkout follow in
// the browser alone. A token the verifier refuses is forgotten, and the page says why in words and
// what to do.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model/callers.ts';
import type { TokenVerifier } from '../domain/ports/token-verifier.ts';
import { statusOf } from '../http/error-handler.ts';
import { adviceFor, tokenFromPaste } from './billing-token-paste.ts';

const TOKEN_COOKIE = 'billing_dev_token';
const NOTICE_COOKIE = 'billing_notice';
const ATTRIBUTES = 'Path=/billing; HttpOnly; SameSite=Strict';

function cookie(request: FastifyRequest, wanted: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === wanted && value) return value;
  }
  return null;
}

/**
 * The token a form posted (found in what was pasted: billing-token-paste.ts), else the one this
 * browser signed in with; null when there is none.
 */
export function presentedToken(request: FastifyRequest): string | null {
  const field = (request.body as { token?: unknown } | undefined)?.token;
  const posted = typeof field === 'string' ? tokenFromPaste(field) : '';
  return posted !== '' ? posted : cookie(request, TOKEN_COOKIE);
}

/** `error` with what to do about it beside why (its `advice`), for refusalInWords. */
function advised(error: unknown, token: string | null): unknown {
  if (!(error instanceof DomainError)) return error;
  const reason = typeof error.details.reason === 'string' ? error.details.reason : '';
  const advice = adviceFor(reason, token);
  return new DomainError(error.code, error.message, { ...error.details, advice });
}

/** Kept no longer than the token is good. Cookies ignore ports: every server on this host name gets it on /billing. */
export function remember(reply: FastifyReply, token: string): void {
  const lifetime = Math.max(1, Number(decodeJwt(token).exp ?? 0) - Math.floor(Date.now() / 1000));
  reply.header('set-cookie', `${TOKEN_COOKIE}=${token}; ${ATTRIBUTES}; Max-Age=${lifetime}`);
}

export function forget(reply: FastifyReply): void {
  reply.header('set-cookie', `${TOKEN_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`);
}

/** Verifies the token presented; remembers it when good, forgets it when refused. */
export async function signIn(
  request: FastifyRequest,
  reply: FastifyReply,
  verifier: TokenVerifier,
): Promise<Principal> {
  const token = presentedToken(request);
  if (token === null)
    throw advised(
      new DomainError('not_authenticated', 'Not authenticated', {
        reason: 'no token pasted, and this browser is not signed in',
      }),
      null,
    );
  try {
    const principal = await verifier.verify(token);
    // A JWT is base64url and dots: nothing a cookie could misread. Anything else is not stored.
    if (/^[A-Za-z0-9_.-]+$/.test(token)) remember(reply, token);
    return principal;
  } catch (error) {
    forget(reply);
    throw advised(error, token);
  }
}

/** Why a token was refused, and what to do, for the person who pasted it. */
export function refusalInWords(error: DomainError): string {
  const reason = typeof error.details.reason === 'string' ? `: ${error.details.reason}` : '';
  const advice = typeof error.details.advice === 'string' ? ` ${error.details.advice}` : '';
  return `${error.message}${reason}.${advice}`;
}

/** Why the domain refused, in words: for a token, what the verifier said. */
export const domainRefusalInWords = (error: DomainError): string =>
  statusOf(error) === 401 ? refusalInWords(error) : `${error.message}.`;

/** A line at the top of /billing: what a form post came to. */
export interface Notice {
  kind: 'error' | 'info';
  text: string;
}

// Lone surrogates (a claim cut short mid-character) would make encodeURIComponent throw.
const wellFormed = (text: string) => text.replace(/[\ud800-\udfff]/gu, '\ufffd');

/**
 * Post-redirect-get: a form answers 303 to /billing and leaves what came of the post here, for the
 * one page that follows, so a reload shows the page again instead of posting again.
 */
export function leaveNotice(reply: FastifyReply, { kind, text }: Notice): void {
  const value = encodeURIComponent(wellFormed(text.slice(0, 1_000)));
  reply.header('set-cookie', `${NOTICE_COOKIE}=${kind}:${value}; ${ATTRIBUTES}; Max-Age=60`);
}

/** The notice a form left for this page, once: it is cleared as it is read. */
export function takeNotice(request: FastifyRequest, reply: FastifyReply): Notice | null {
  const value = cookie(request, NOTICE_COOKIE);
  if (value === null) return null;
  reply.header('set-cookie', `${NOTICE_COOKIE}=; ${ATTRIBUTES}; Max-Age=0`);
  const [, kind, text] = /^(error|info):(.*)$/.exec(value) ?? [];
  try {
    return kind ? { kind: kind as Notice['kind'], text: decodeURIComponent(text!) } : null;
  } catch {
    return null; // not one we left
  }
}
