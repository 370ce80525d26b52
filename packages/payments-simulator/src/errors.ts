// Stripe's error shape, {"error":{"type","message","param","code"}}, with the status Stripe uses:
// 400 bad parameters, 401 bad key, 404 unknown URL or object, 409 idempotency conflict.
import type { FastifyError, FastifyInstance } from 'fastify';

export type StripeErrorType = 'invalid_request_error' | 'idempotency_error' | 'api_error';

export interface StripeErrorOptions {
  type?: StripeErrorType;
  param?: string;
  code?: string;
  headers?: Record<string, string>;
}

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: StripeErrorOptions = {},
  ) {
    super(message);
    this.name = 'StripeApiError';
  }

  body(): { error: Record<string, string> } {
    const { type = 'invalid_request_error', param, code } = this.options;
    const error: Record<string, string> = { type, message: this.message };
    if (param !== undefined) error.param = param;
    if (code !== undefined) {
      error.code = code;
      error.doc_url = `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}`;
    }
    return { error };
  }
}

/** A bad parameter: 400 invalid_request_error naming it. */
export const invalidParam = (message: string, param?: string, code?: string): StripeApiError =>
  new StripeApiError(400, message, { param, code });

/** A parameter whose effect the simulator cannot honour: a 400 saying so, and why. */
export const unsupported = (param: string, why: string): StripeApiError =>
  invalidParam(`The payments simulator does not support ${param}: ${why}.`, param);

/** An unknown object: 404 when named by the URL, 400 naming the parameter when named by one. */
export const noSuch = (kind: string, id: string, param?: string): StripeApiError =>
  new StripeApiError(param === undefined ? 404 : 400, `No such ${kind}: '${id}'`, {
    param,
    code: 'resource_missing',
  });

export function registerStripeErrors(
  app: FastifyInstance,
  log: (message: string, fields?: object) => void,
): void {
  app.setNotFoundHandler((request, reply) => {
    const error = new StripeApiError(
      404,
      `Unrecognized request URL (${request.method}: ${request.url.split('?')[0]}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    );
    return reply.status(404).send(error.body());
  });
  app.setErrorHandler((raw: FastifyError | StripeApiError, request, reply) => {
    let error: StripeApiError;
    if (raw instanceof StripeApiError) {
      error = raw;
    } else if (raw.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      error = invalidParam(
        `Invalid request: unsupported Content-Type ${request.headers['content-type'] ?? ''}. Send application/x-www-form-urlencoded.`,
      );
    } else if (
      typeof raw.statusCode === 'number' &&
      raw.statusCode >= 400 &&
      raw.statusCode < 500
    ) {
      error = new StripeApiError(
        raw.statusCode === 413 ? 413 : 400,
        `Invalid request: ${raw.message}`,
      );
    } else {
      log('payments simulator: unexpected error', {
        method: request.method,
        url: request.url,
        error: String(raw?.stack ?? raw),
      });
      error = new StripeApiError(500, 'An unknown error occurred', { type: 'api_error' });
    }
    for (const [name, value] of Object.entries(error.options.headers ?? {}))
      reply.header(name, value);
    return reply.status(error.status).send(error.body());
  });
}
