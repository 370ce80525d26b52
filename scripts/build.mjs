// npm run build (and npm start's prestart): compiles the service and the operator CLI to plain
// JavaScript in dist/, so production runs `node dist/server.mjs` without tsx (which costs some
// 35 MB of resident memory per process). Type checking stays with `npm run typecheck`; esbuild
// only strips the types, in well under a second.
//
// - packages: 'external': node_modules are imported at run time, not copied into the bundle.
// - splitting: modules that src/ imports lazily (`await import(...)`: PGlite, only on the embedded
//   database; the CLI's commands) become chunks of their own, loaded when reached. A single-file
//   bundle would hoist `import '@electric-sql/pglite'` to the top and load it in every process.
// - Files read at run time (migrations/) are found from the project root (src/project-root.ts),
//   so they resolve the same from src/ and from dist/.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url)); // wherever this is called from
const outdir = join(root, 'dist');
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { server: './src/server.ts', cli: './src/cli/index.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true, // used by `node --enable-source-maps` (stack traces in src/ terms)
  logLevel: 'warning',
  metafile: true,
});

// Old chunks (their names carry a content hash) are removed after the build rather than by
// emptying dist/ first, so a service already running from dist/ never finds its files missing.
const written = new Set(Object.keys(metafile.outputs).map((file) => join(root, file)));
for (const file of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const path = join(file.parentPath ?? file.path, file.name); // .path before Node 20.12
  if (file.isFile() && !written.has(path)) rmSync(path);
}
