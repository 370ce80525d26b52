// npm start: build dist/ (scripts/build.mjs, in a child process that ends before the service
// starts), then run the service in this very process. npm forwards SIGTERM and SIGINT to its child,
// which the start script's `exec` makes this process (npm runs scripts through `sh -c`; without
// exec the signal stops the shell and the service runs on, holding its ports).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const built = spawnSync(process.execPath, [fileURLToPath(new URL('build.mjs', import.meta.url))], {
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);
// As `node --import ./dist/otel.mjs`: OpenTelemetry, when an OTLP endpoint is configured, must be
// in place before the service's modules are imported. Otherwise it loads nothing.
await import('../dist/otel.mjs');
await import('../dist/server.mjs');
