// OpenTelemetry's Node SDK and the instrumentations made for this stack, started before the
// service's code is loaded (src/otel.ts imports this module only when an OTLP endpoint is
// configured). The standard OTEL_* variables configure it, read by the SDK itself; the service
// adds defaults only: its name (`billing-service`), no OTLP metrics or logs (metrics are
// Prometheus', logs stdout's) unless OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER ask, and the
// SDK's own warnings on stderr, where they cannot mix with the JSON log lines.
//
// The service is ES modules: import-in-the-middle's loader hook lets the instrumentations patch
// `http`, `pg` and the rest as they are imported, for the modules they name only.
import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';

/** Asked every few seconds by balancers and scrapers: no trace each time. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);
const untraced = (url: string | undefined) => UNTRACED.has((url ?? '').split('?')[0]!);

function defaults(env: NodeJS.ProcessEnv): void {
  const named = /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  if (!env.OTEL_SERVICE_NAME && !named) env.OTEL_SERVICE_NAME = 'billing-service';
  env.OTEL_METRICS_EXPORTER ||= 'none';
  env.OTEL_LOGS_EXPORTER ||= 'none';
}

const toStderr =
  (level: string) =>
  (message: string, ...args: unknown[]) =>
    process.stderr.write(`opentelemetry ${level}: ${[message, ...args].join(' ')}\n`);

defaults(process.env);
// The SDK replaces this with its console logger when OTEL_LOG_LEVEL is set.
diag.setLogger(
  {
    error: toStderr('error'),
    warn: toStderr('warn'),
    info: toStderr('info'),
    debug: toStderr('debug'),
    verbose: toStderr('verbose'),
  },
  DiagLogLevel.WARN,
);

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

const sdk = new NodeSDK({
  instrumentations: [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => untraced(request.url) }),
    // The global fetch: outbound events, the identity provider's keys.
    new UndiciInstrumentation(),
    // A query outside any span (a background job's poll) makes no trace of its own; taking a
    // pooled connection makes no span (the pool's waits are /metrics' db_pool_connections).
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    // Under the HTTP server span: Fastify's request, and its route's handler by the route's name
    // (the service's plugins are anonymous; a span per lifecycle hook would be named by their source).
    new FastifyOtelInstrumentation({
      registerOnInitialization: true,
      ignorePaths: (route) => untraced(route.url),
      instrumentHooks: false,
      lifecycleHook: (span, { hookName, request }) =>
        span.updateName(`${hookName} ${request.method} ${request.routeOptions.url ?? ''}`),
    }),
  ],
});
sdk.start();
await waitForAllMessagesAcknowledged();
