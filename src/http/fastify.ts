// The Fastify instance every listener starts from (the API's, the /metrics one): the production
// settings, limits and timeouts, the JSON parser, the error handling and the request ids.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import { answerFrameworkError, registerErrorHandling } from './error-handler.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { answerClientError } from './client-errors.ts';
import { AccessLog } from './access-log.ts';
import { keepRequestDeadlineWhileClosing } from './request-deadline.ts';
import { echoRequestId, requestId } from './request-id.ts';

export interface AppOptions {
  logger: Logger;
}

const BODY_LIMIT = 64 * 1024;
// A client that sends headers and part of a body, then nothing, must not hold a connection (or a
// shutdown) forever: the whole request within requestTimeoutMs, checked every second, else 408.
// A socket silent both ways for a minute is closed too; no handler waits that long on a provider.
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const IDLE_SOCKET_TIMEOUT_MS = 60_000;
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** The Fastify instance with the production settings, parsers and error handling, before any route. */
export function createFastify(
  options: AppOptions & { requestTimeoutMs?: number },
): FastifyInstance {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: options.logger,
    requestTimeout,
    connectionTimeout: IDLE_SOCKET_TIMEOUT_MS,
    http: {
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    logController: new AccessLog(),
    bodyLimit: BODY_LIMIT,
    requestIdHeader: false,
    // A path parameter (an organisation's id at the identity provider, up to 255 characters) may be
    // percent-encoded UTF-8: let it through to its schema, which answers 422 in the contract's shape.
    routerOptions: { maxParamLength: 4096 },
    genReqId: requestId,
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    // Validation must not coerce (5 is not "5") and must report every problem, as Pydantic does.
    ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;

  registerJsonBodyParser(app);
  registerErrorHandling(app);
  echoRequestId(app);
  keepRequestDeadlineWhileClosing(app, requestTimeout);
  return app;
}
