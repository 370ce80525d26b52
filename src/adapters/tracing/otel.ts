// The tracing port on OpenTelemetry's API, and what the log and the outbox take from the active
// span. Only @opentelemetry/api is imported here: until an SDK registers (src/otel.ts, when an
// OTLP endpoint is configured) each call is the API's no-op, a few property reads, and nothing is
// recorded or sent.
import {
  context,
  createContextKey,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api';
import type { SpanNotes, Tracing } from '../../domain/ports/tracing.ts';

const tracer = trace.getTracer('billing-service');

/**
 * Where instrumentation-http keeps the request's server span for the frameworks above it (the key
 * of @opentelemetry/core's getRPCMetadata: a Symbol.for of this name, so any copy finds it).
 */
const RPC_METADATA = createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

const NO_NOTES: SpanNotes = { set: () => {}, failed: () => {} };

const notesOn = (span: Span): SpanNotes => ({
  set: (attributes) => void span.setAttributes(attributes),
  failed(error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof Error) span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  },
});

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A context whose span is the one a W3C traceparent names; the root context if it names none. */
function continuing(traceparent: string) {
  const [, traceId, spanId, flags] = TRACEPARENT.exec(traceparent) ?? [];
  if (traceId === undefined || spanId === undefined) return ROOT_CONTEXT;
  const parent = { traceId, spanId, traceFlags: parseInt(flags!, 16), isRemote: true };
  return isSpanContextValid(parent) ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
}

export const otelTracing: Tracing = {
  inSpan(name, { kind, attributes, parent }, work) {
    const options = {
      kind: kind === 'producer' ? SpanKind.PRODUCER : SpanKind.INTERNAL,
      attributes,
    };
    const base = parent ? continuing(parent) : context.active();
    return tracer.startActiveSpan(name, options, base, async (span) => {
      try {
        return await work(notesOn(span));
      } catch (error) {
        notesOn(span).failed(error);
        throw error;
      } finally {
        span.end();
      }
    });
  },
  request() {
    const active = context.active();
    const server = (active.getValue(RPC_METADATA) as { span?: Span } | undefined)?.span;
    const span = server ?? trace.getSpan(active);
    return span === undefined ? NO_NOTES : notesOn(span);
  },
};

const activeSpanContext = () => {
  const span = trace.getActiveSpan()?.spanContext();
  return span !== undefined && isSpanContextValid(span) ? span : null;
};

/** The active span as a W3C traceparent (what an outbound event records); null outside a trace. */
export function activeTraceparent(): string | null {
  const span = activeSpanContext();
  if (span === null) return null;
  return `00-${span.traceId}-${span.spanId}-${span.traceFlags.toString(16).padStart(2, '0')}`;
}

/**
 * A log line's trace_id, span_id and trace_flags while a span is active (pino's mixin). A new
 * object each time: pino merges the line's own fields into it.
 */
export function traceFields(): object {
  const span = activeSpanContext();
  if (span === null) return {};
  const flags = span.traceFlags.toString(16).padStart(2, '0');
  return { trace_id: span.traceId, span_id: span.spanId, trace_flags: flags };
}

/**
 * Exports the spans still waiting in the SDK's batch, bounded: the process exits right after the
 * service closes. Nothing to do without an SDK.
 */
export async function flushTraces(boundMs = 2_000): Promise<void> {
  const provider = trace.getTracerProvider() as { getDelegate?(): unknown };
  const sdk = provider.getDelegate?.() as { forceFlush?(): Promise<void> } | undefined;
  if (sdk?.forceFlush === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
  await Promise.race([sdk.forceFlush().catch(() => {}), bound]);
  clearTimeout(timer);
}
