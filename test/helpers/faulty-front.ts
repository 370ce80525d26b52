// A small HTTP front on 127.0.0.1 that passes requests on to a real server (the payment
// simulator, an identity provider) and misbehaves on demand for chosen routes: it answers 500
// without passing the request on, passes it on and then answers 500 (the answer is lost), passes it
// on and never answers (a hang), passes it on late (a slow provider), passes its answer back late
// (dated as it leaves), or answers itself once a gate opens (a slow provider, a 429). It can also
// set the provider's clock apart from ours (the Date header of what it passes back).
// Every request is recorded with its Idempotency-Key and the id of the object the server answered with.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault =
  /** Answer 500 at once; the server never sees the request. */
  | { kind: 'fail' }
  /** Pass the request on (the server acts), then answer 500 instead of the server's answer. */
  | { kind: 'fail-after' }
  /** Pass the request on (the server acts), then never answer. */
  | { kind: 'hang-after' }
  /** Never answer, and do not pass the request on. */
  | { kind: 'hang' }
  /** Pass the request on after `ms` (a slow provider), and its answer back. */
  | { kind: 'delay'; ms: number }
  /**
   * Pass the request on now (the server answers with what it holds now), and its answer back once
   * `gate` resolves, dated as it leaves: an answer that left a provider a while after its data.
   */
  | { kind: 'answer-after'; gate: Promise<void> }
  /** Answer this, once `gate` resolves; the server never sees the request. */
  | {
      kind: 'reply';
      status: number;
      body: unknown;
      headers?: Record<string, string>;
      gate?: Promise<void>;
    };

export interface SeenRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  /** What the client got: a status, or null when it got no answer. */
  answered: number | null;
  /** `id` of the JSON object the server answered with, when the request reached it. */
  objectId: string | null;
  /** performance.now() when it arrived, and when it was answered (null: not yet, or never). */
  at: number;
  answeredAt: number | null;
  /** The server's answer as it came, when the front keeps answers (`keepAnswers`). */
  answerText?: string;
}

interface Rule {
  method: string;
  path: RegExp;
  fault: Fault;
  remaining: number;
}

export interface FaultyFront {
  url: string;
  requests: SeenRequest[];
  /** Requests waiting on a `reply` gate or hanging right now. */
  readonly held: number;
  /** Seconds the provider's clock (its answers' Date header) is ahead of ours; negative: behind. */
  clockOffsetSeconds: number;
  /** Keep each passed-on answer's text in its request's `answerText` (off by default). */
  keepAnswers: boolean;
  /** Misbehave on the next `times` requests matching method and path (default: until cleared). */
  inject(method: string, path: RegExp, fault: Fault, times?: number): void;
  clear(): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'host',
  'content-length',
  'content-encoding',
]);

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function objectIdOf(text: string): string | null {
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

export async function startFaultyFront(target: string): Promise<FaultyFront> {
  const rules: Rule[] = [];
  const requests: SeenRequest[] = [];
  let held = 0;

  async function forward(
    request: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string>; text: string }> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
    }
    const method = request.method ?? 'GET';
    const answer = await fetch(new URL(request.url ?? '/', target), {
      method,
      headers,
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: new Uint8Array(body) }),
    });
    const answerHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) answerHeaders[name] = value;
    });
    return { status: answer.status, headers: answerHeaders, text: await answer.text() };
  }

  function ruleFor(method: string, path: string): Rule | undefined {
    const rule = rules.find((r) => r.remaining > 0 && r.method === method && r.path.test(path));
    if (rule) rule.remaining -= 1;
    return rule;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://front').pathname;
    const key = request.headers['idempotency-key'];
    const seen: SeenRequest = {
      method,
      path,
      idempotencyKey: typeof key === 'string' ? key : null,
      answered: null,
      objectId: null,
      at: performance.now(),
      answeredAt: null,
    };
    requests.push(seen);
    const answer = (status: number, headers: Record<string, string>, text: string) => {
      seen.answered = status;
      seen.answeredAt = performance.now();
      response.writeHead(status, headers).end(text);
    };
    const failure = JSON.stringify({ error: { type: 'api_error', message: 'Injected failure' } });
    const fault = ruleFor(method, path)?.fault;
    if (fault?.kind === 'fail') return answer(500, { 'content-type': 'application/json' }, failure);
    if (fault?.kind === 'hang') {
      held += 1;
      response.on('close', () => (held -= 1));
      return;
    }
    if (fault?.kind === 'reply') {
      held += 1;
      await fault.gate;
      held -= 1;
      return answer(
        fault.status,
        { 'content-type': 'application/json', ...fault.headers },
        JSON.stringify(fault.body),
      );
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const forwarded = await forward(request, body);
    seen.objectId = forwarded.status < 300 ? objectIdOf(forwarded.text) : null;
    if (front.keepAnswers) seen.answerText = forwarded.text;
    if (fault?.kind === 'fail-after')
      return answer(500, { 'content-type': 'application/json' }, failure);
    if (fault?.kind === 'hang-after') {
      held += 1;
      response.on('close', () => (held -= 1));
      return;
    }
    if (fault?.kind === 'answer-after') {
      held += 1;
      await fault.gate;
      held -= 1;
    }
    answer(
      forwarded.status,
      {
        ...forwarded.headers,
        date: new Date(Date.now() + front.clockOffsetSeconds * 1000).toUTCString(),
      },
      forwarded.text,
    );
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(599).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  const front: FaultyFront = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    clockOffsetSeconds: 0,
    keepAnswers: false,
    get held() {
      return held;
    },
    inject(method, path, fault, times = Number.POSITIVE_INFINITY) {
      rules.push({ method, path, fault, remaining: times });
    },
    clear() {
      rules.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return front;
}

/** The most of `requests` that were in flight at the same moment (arrived, not yet answered). */
export function mostInFlight(requests: readonly SeenRequest[]): number {
  const edges = requests.flatMap((r) => [
    [r.at, 1],
    [r.answeredAt ?? Number.POSITIVE_INFINITY, -1],
  ]);
  edges.sort(([a, da], [b, db]) => a! - b! || da! - db!);
  let now = 0;
  let most = 0;
  for (const [, delta] of edges) most = Math.max(most, (now += delta!));
  return most;
}
