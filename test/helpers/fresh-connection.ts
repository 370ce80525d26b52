// One HTTP request on a TCP connection of its own (no keep-alive agent): what a new client does,
// and what lets node:cluster give the request to any worker. Connection errors are answers too
// (a service that stopped listening refuses), so they resolve rather than reject.
import { request as httpRequest } from 'node:http';

export type FreshAnswer = { status: number; body: string } | { error: string };

export function requestOnFreshConnection(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<FreshAnswer> {
  return new Promise((resolve) => {
    const failed = (error: Error) =>
      resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message });
    const request = httpRequest(
      url,
      { method, agent: false, headers: { ...headers, connection: 'close' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: text }));
        response.on('error', failed);
      },
    );
    request.on('error', failed);
    request.end(body);
  });
}
