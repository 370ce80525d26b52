// One structured JSON logger for the process, shared by Fastify and the adapters. Credentials are
// redacted wherever they might appear.
import { pino, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["stripe-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  'apiKey',
  'token',
  'secret',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
