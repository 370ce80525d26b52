// A stand-in for an OpenTelemetry collector: a real HTTP server taking OTLP/HTTP JSON (`POST
// /v1/traces`, what the SDK's exporter sends with OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and
// keeping every span it was sent, flattened: ids, parent, kind, attributes, and its resource's
// service.name.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  /** The instrumentation that made it (`@opentelemetry/instrumentation-pg`, ...). */
  scope: string;
  service: string;
  attributes: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT names. */
  url: string;
  spans: ReceivedSpan[];
  /** Requests of any kind, to any path. */
  requests: number;
  /** The first span received that matches, waiting for it (the exporter sends in batches). */
  find(what: string, matches: (span: ReceivedSpan) => boolean, ms?: number): Promise<ReceivedSpan>;
  /** Whether `span` descends from `ancestor`, among the spans received. */
  under(span: ReceivedSpan, ancestor: ReceivedSpan): boolean;
  close(): Promise<void>;
}

type KeyValue = { key: string; value: Record<string, unknown> };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
};
type OtlpTraces = {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
};

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;

/** `{stringValue: "x"}` -> "x"; an intValue (a string in OTLP/JSON) -> a number. */
const valueOf = (value: Record<string, unknown>) => {
  const [type, inner] = Object.entries(value)[0] ?? [];
  return type === 'intValue' ? Number(inner) : inner;
};
const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

function flatten(body: OtlpTraces): ReceivedSpan[] {
  return body.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const service = String(attributesOf(resource.attributes)['service.name']);
    return scopeSpans.flatMap(({ scope, spans }) =>
      spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || null,
        name: span.name,
        kind: KINDS[span.kind] ?? 'unspecified',
        scope: scope.name,
        service,
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const receiver = { spans: [] as ReceivedSpan[], requests: 0 };
  const server: Server = createServer(async (request, response) => {
    receiver.requests += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.url === '/v1/traces' && request.headers['content-type'] === 'application/json')
      receiver.spans.push(...flatten(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(port, '127.0.0.1', () => resolve());
  });
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    find: (what: string, matches: (span: ReceivedSpan) => boolean, ms?: number) =>
      eventually(() => receiver.spans.find(matches), what, ms),
    under: (span: ReceivedSpan, ancestor: ReceivedSpan) =>
      ancestorsOf(span, receiver.spans).includes(ancestor),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The span's ancestors, nearest first, among `spans`. */
function ancestorsOf(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  const found: ReceivedSpan[] = [];
  for (let at = byId.get(span.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? ''))
    found.push(at);
  return found;
}

/** Polls until `find` returns something (the exporter sends in batches); fails after `ms`. */
export async function eventually<T>(find: () => T | undefined, what: string, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`not received within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
