// Preloaded into a process under test (`--import`), writes at its exit, to the file
// LOADED_MODULES_FILE names, the packages it loaded (from the module cache: every CommonJS module,
// whether required or imported, as OpenTelemetry's packages are) and what registered itself with
// OpenTelemetry's API (its global: `trace`, `context`, `propagation`... once an SDK starts).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const packageOf = (path) => {
  const parts = path.split('node_modules/').pop().split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
};

process.on('exit', () => {
  const paths = Object.keys(require.cache).filter((path) => path.includes('node_modules/'));
  const registered = globalThis[Symbol.for('opentelemetry.js.api.1')] ?? {};
  const loaded = {
    packages: [...new Set(paths.map(packageOf))].sort(),
    registered: Object.keys(registered).filter((key) => key !== 'version'),
  };
  writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(loaded));
});
