// Loaded before the service's own code: `node --import ./dist/otel.mjs dist/server.mjs` (the
// container), and first thing by `npm start` (scripts/start.mjs). With an OTLP endpoint
// configured it starts OpenTelemetry (src/adapters/tracing/sdk.ts), whose instrumentations must
// be in place before http, pg and Fastify are first imported. Without one it loads nothing: no
// SDK, no exporter, no instrumentation, and @opentelemetry/api, which the service always uses,
// stays its own no-op. The OTEL_* variables are the SDK's, not the service's configuration:
// this is the one place outside config.ts that looks at the environment, to decide whether to load it.

/** Whether traces are to be exported: an OTLP endpoint is set, and the SDK is not disabled. */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

if (tracingConfigured(process.env)) await import('./adapters/tracing/sdk.ts');
