// npm run build (and npm start's prestart): compiles the service and the operator CLI to plain
// JavaScript in dist/, so production runs `node dist/server.mjs` without tsx (which costs some
// 35 MB of resident memory per process). Type checking stays with `npm run typecheck`; esbuild
// only strips the types, in well under a second.
//
// - packages: 'external': node_modules are imported at run time, not copied into the bundle. The
//   workspace packages (packages/*, e.g. the payment simulator) are the exception: they are
//   TypeScript source, so they are bundled like src/ (the plugin below), into chunks of their own
//   when src/ imports them lazily.
// - splitting: modules that src/ imports lazily (`await import(...)`: PGlite, only on the embedded
//   database; the CLI's commands) become chunks of their own, loaded when reached. A single-file
//   bundle would hoist `import '@electric-sql/pglite'` to the top and load it in every process.
// - Files read at run time (migrations/) are found from the project root (src/adapters/project-root.ts),
//   so they resolve the same from src/ and from dist/.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url)); // wherever this is called from
const outdir = resolve(root, process.argv[2] ?? 'dist'); // npm test builds into a directory of its own

/** Each workspace package's entry points by specifier: `@billing/payments-simulator` -> its src/index.ts. */
function workspaceEntries() {
  const entries = new Map();
  const packagesDir = join(root, 'packages');
  for (const dir of existsSync(packagesDir) ? readdirSync(packagesDir) : []) {
    const { name, exports = {} } = JSON.parse(
      readFileSync(join(packagesDir, dir, 'package.json'), 'utf8'),
    );
    for (const [subpath, file] of Object.entries(exports))
      entries.set(name + subpath.slice(1), join(packagesDir, dir, file));
  }
  return entries;
}

const bundleWorkspacePackages = {
  name: 'bundle-workspace-packages',
  setup(build) {
    const entries = workspaceEntries();
    build.onResolve({ filter: /^@/ }, ({ path }) =>
      entries.has(path) ? { path: entries.get(path) } : undefined,
    );
  },
};

const { metafile } = await build({
  absWorkingDir: root,
  // otel.mjs: loaded before server.mjs (`node --import`), it starts OpenTelemetry when configured.
  entryPoints: { server: './src/server.ts', cli: './src/cli/index.ts', otel: './src/otel.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  sourcemap: true, // used by `node --enable-source-maps` (stack traces in src/ terms)
  logLevel: 'warning',
  metafile: true,
  plugins: [bundleWorkspacePackages],
});

// Old chunks (their names carry a content hash) are removed after the build rather than by
// emptying dist/ first, so a service already running from dist/ never finds its files missing.
const written = new Set(Object.keys(metafile.outputs).map((file) => join(root, file)));
for (const file of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const path = join(file.parentPath ?? file.path, file.name); // .path before Node 20.12
  if (file.isFile() && !written.has(path)) rmSync(path);
}
