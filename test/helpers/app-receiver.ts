// A stand-in for the application's endpoint: a real HTTP server that verifies each delivery with
// the `standardwebhooks` package itself (not with code of ours) and records what arrived. What it
// answers is the test's to choose, per delivery.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Arrival {
  id: string;
  body: string;
  /** The parsed, verified payload. */
  payload: {
    type: string;
    timestamp: string;
    data: Record<string, unknown> & { subject: Record<string, string> };
  };
  headers: Record<string, string>;
}

export interface AppReceiver {
  url: string;
  secret: string;
  /** Verified deliveries, in the order they arrived. */
  arrivals: Arrival[];
  /** Deliveries that failed verification. */
  refused: number;
  /** The status of the next answers (a queue); 204 once it is empty. */
  answers: number[];
  /** How long the next answers wait before they go (a queue, ms); at once once it is empty. */
  delays: number[];
  /** The bodies of the next answers (a queue); none once it is empty. */
  bodies: (string | Buffer)[];
  close(): Promise<void>;
}

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export async function startAppReceiver(secret = newSecret()): Promise<AppReceiver> {
  const webhook = new Webhook(secret);
  const receiver: Omit<AppReceiver, 'url' | 'close'> = {
    secret,
    arrivals: [],
    refused: 0,
    answers: [],
    delays: [],
    bodies: [],
  };
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
    );
    try {
      const payload = webhook.verify(body, headers) as Arrival['payload'];
      receiver.arrivals.push({ id: headers['webhook-id']!, body, payload, headers });
    } catch {
      receiver.refused += 1;
      response.writeHead(400).end('not verified');
      return;
    }
    const status = receiver.answers.shift() ?? 204;
    const answer = receiver.bodies.shift();
    setTimeout(() => response.writeHead(status).end(answer), receiver.delays.shift() ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks/billing`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
