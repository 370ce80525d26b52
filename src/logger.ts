// One structured JSON logger for the process, shared by Fastify and the adapters. Credentials are
// redacted wherever they might appear. A line written while a span is active carries its
// trace_id and span_id, so a trace and its log lines find each other.
import { pino, type Logger } from 'pino';
import { traceFields } from './adapters/tracing/otel.ts';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["stripe-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  'apiKey',
  'token',
  'secret',
];

/**
 * A serving process writes its lines in batches (about 4 KB, and at least every 100 ms), not one
 * write each: a write per request (the access log) costs a tenth of a request's CPU. What is
 * pending goes out when the process exits, whatever the cause but a kill.
 */
const BATCHED = { sync: false, minLength: 4096, periodicFlush: 100 };

export function createLogger(level: string, { batched = false } = {}): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin: traceFields,
  };
  return batched && level !== 'silent' ? pino(options, pino.destination(BATCHED)) : pino(options);
}
