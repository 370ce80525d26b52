// One place maps every error to a response. Domain codes map exhaustively; validation failures
// become FastAPI's 422; anything unexpected is logged with the request id and answered with a
// plain 500 that shows nothing of the cause.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '../domain/errors.ts';
import { DatabaseUnavailableError } from '../adapters/database/sql-client.ts';
import { JsonBodyError } from './json-body.ts';
import { invalidTokenChallenge } from './token-challenge.ts';
import {
  fieldError,
  jsonDecodeError,
  toValidationErrors,
  type ValidationErrorItem,
} from './validation-errors.ts';

interface Rendered {
  status: number;
  detail: string | ValidationErrorItem[];
  headers?: Record<string, string>;
}

// A database outage is usually short: clients (and balancers) are told when to try again.
const RETRY_LATER = { 'retry-after': '5' };

function renderDomain(error: DomainError): Rendered {
  const code: ErrorCode = error.code;
  switch (code) {
    case 'not_authenticated':
      return {
        status: 401,
        detail: 'Not authenticated',
        headers: { 'www-authenticate': 'Bearer' },
      };
    case 'invalid_token':
      return {
        status: 401,
        detail: 'Invalid token',
        headers: { 'www-authenticate': invalidTokenChallenge(error.details.reason) },
      };
    case 'invalid_redirect_url': {
      const { field, input } = error.details as { field: string; input: unknown };
      return { status: 422, detail: [fieldError(field, 'url_not_allowed', error.message, input)] };
    }
    case 'invalid_field': {
      const { field, type, input } = error.details as {
        field: string;
        type: string;
        input: unknown;
      };
      return { status: 422, detail: [fieldError(field, type, error.message, input)] };
    }
    case 'organization_required':
    case 'manager_role_required':
    case 'service_caller_refused':
      return { status: 403, detail: error.message };
    case 'subscription_active':
    case 'nothing_to_manage':
    case 'seat_reports_off':
    case 'credits_not_for_sale':
    case 'idempotency_key_reused':
      return { status: 409, detail: error.message };
    case 'invalid_signature':
      return { status: 400, detail: error.message };
    case 'payload_too_large':
      return { status: 413, detail: error.message };
    case 'payments_unavailable':
      return { status: 502, detail: error.message };
    case 'payments_throttled':
      return {
        status: 503,
        detail: error.message,
        headers: { 'retry-after': String(error.details.retryAfterSeconds ?? 1) },
      };
    case 'database_unavailable':
      return { status: 503, detail: error.message, headers: RETRY_LATER };
    default: {
      const unknown: never = code;
      throw new Error(`unmapped error code ${String(unknown)}`);
    }
  }
}

/** The status the catalogue gives a domain error, for pages that answer in HTML rather than JSON. */
export const statusOf = (error: DomainError): number => renderDomain(error).status;

function render(error: FastifyError, input: unknown): Rendered | null {
  if (error instanceof DomainError) return renderDomain(error);
  if (error instanceof JsonBodyError)
    return { status: 422, detail: [jsonDecodeError(error.position, error.reason)] };
  if (error instanceof DatabaseUnavailableError)
    return { status: 503, detail: 'Database unavailable', headers: RETRY_LATER };
  if (error.validation)
    return {
      status: 422,
      detail: toValidationErrors(error.validation, error.validationContext ?? 'body', input),
    };
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return { status: 413, detail: 'Request body too large' };
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, detail: error.message };
  return null;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply: FastifyReply) => {
    const parts: Record<string, unknown> = {
      body: request.body,
      querystring: request.query,
      params: request.params,
      headers: request.headers,
    };
    const rendered = render(error, parts[error.validationContext ?? 'body']);
    if (rendered === null) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send({ detail: 'Internal Server Error' });
    }
    if (rendered.status >= 500) request.log.warn({ err: error }, 'dependency unavailable');
    // Why a caller was refused, for whoever debugs an identity provider's set-up: never the token.
    if (rendered.status === 401)
      request.log.info(
        { reason: error instanceof DomainError ? error.details.reason : error.message },
        'authentication refused',
      );
    return reply
      .status(rendered.status)
      .headers(rendered.headers ?? {})
      .send({ detail: rendered.detail });
  });
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ detail: 'Not Found' }));
}

/**
 * Fastify's own refusals before any route (a path whose percent-encoding is broken), in the
 * contract's shape, without echoing the path.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  request.log.info({ reason: error.code }, 'request refused before routing');
  void reply.status(400).send({ detail: 'Malformed URL: its percent-encoding is not valid' });
}
