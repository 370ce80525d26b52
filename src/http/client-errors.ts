// Requests Node's HTTP parser refuses before Fastify sees them (oversized headers, malformed
// request lines) still get the API's {"detail": ...} shape, then the connection is closed.
import type { Socket } from 'node:net';

const REASONS: Record<string, [status: number, detail: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout'],
};

export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  const [status, detail] = REASONS[error.code ?? ''] ?? [400, 'Bad request'];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${detail}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  } else {
    socket.destroy(error);
  }
}
