// Sends an outbound event over HTTP: a POST of the stored body, signed anew for each attempt. A
// 2xx within 15 s is a delivery; a redirect is not followed (it counts as a failure, as Standard
// Webhooks says); only the first 1 KB of the answer is kept, as text that can be stored whatever
// the bytes were (a GIF, protobuf, a UTF-16 error page): invalid UTF-8 becomes U+FFFD, and NUL and
// the other control characters but tab and newlines are written as \u escapes.
import type { EventSender, SendResult } from '../../domain/ports/event-sender.ts';
import { signedHeaders } from './standard-webhooks.ts';

export const ATTEMPT_TIMEOUT_MS = 15_000;
const KEPT_BYTES = 1024;

export interface SenderTarget {
  /** Where to send; null while unknown (the development receiver before the service listens). */
  url(): string | null;
  secrets(): readonly string[];
}

async function firstBytes(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    chunks.push(read.value);
    size += read.value.length;
    if (size >= KEPT_BYTES) break;
  }
  await reader.cancel().catch(() => {});
  return storable(Buffer.concat(chunks).subarray(0, KEPT_BYTES).toString('utf8'));
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** At most 2,048 characters once escaped. */
const storable = (text: string) =>
  text
    .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .slice(0, 2 * KEPT_BYTES);

export function createHttpSender(
  target: SenderTarget,
  timeoutMs = ATTEMPT_TIMEOUT_MS,
): EventSender {
  return {
    ready: () => target.url() !== null,
    async send(id, body, stop): Promise<SendResult> {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
      try {
        const response = await fetch(target.url()!, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'billing-service-events',
            ...signedHeaders(target.secrets(), id, body),
          },
          body,
          redirect: 'manual',
          signal,
        });
        return { status: response.status, answer: await firstBytes(response) };
      } catch (error) {
        const why = timeout.aborted
          ? `no answer within ${timeoutMs / 1000} s`
          : stop?.aborted
            ? 'not sent: the service was closing'
            : error instanceof Error
              ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}`
              : String(error);
        return { status: null, answer: storable(why) };
      }
    },
  };
}
