// What the domain tells a trace: notes on the request being served (a webhook delivery's event and
// outcome) and spans of its own for work done outside any request (a seat sync, an outbound
// event's delivery). The adapter decides how (OpenTelemetry); NO_TRACING does nothing, and so does
// the adapter while no tracing is configured.

/** Attribute names follow OpenTelemetry's semantic conventions where one fits, else `billing.*`. */
export type TraceAttributes = Record<string, string | number | boolean>;

/** What may be said of a span while it lasts. */
export interface SpanNotes {
  set(attributes: TraceAttributes): void;
  /** Marks the span failed, with the error's message, when the work handles the error itself. */
  failed(error: unknown): void;
}

export interface SpanOptions {
  /** `producer`: the span sends something another system goes on with. */
  kind?: 'internal' | 'producer';
  attributes?: TraceAttributes;
  /**
   * The trace that caused this work, as a W3C `traceparent` recorded when it was (an outbound
   * event's): the span continues it. Null or absent: the span is a child of the active one, if any.
   */
  parent?: string | null;
}

export interface Tracing {
  /** Runs `work` in a span of its own, ended when the work settles; one that throws is failed. */
  inSpan<T>(name: string, options: SpanOptions, work: (span: SpanNotes) => Promise<T>): Promise<T>;
  /** Notes on the request being served (its HTTP server span); nothing outside a request. */
  request(): SpanNotes;
}

const NO_NOTES: SpanNotes = { set: () => {}, failed: () => {} };

export const NO_TRACING: Tracing = {
  inSpan: (_name, _options, work) => work(NO_NOTES),
  request: () => NO_NOTES,
};
