// Files that ship beside the code (migrations/) are found from the project root, the nearest
// directory above this module holding package.json. A path relative to import.meta.url would
// differ between src/ (run through tsx: tests, CLI) and the esbuild output in dist/ (npm start,
// the image), where this module is bundled into a file at another depth.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** An absolute path to `relative` inside the project (the directory holding package.json). */
export const projectPath = (...relative: string[]): string => join(PROJECT_ROOT, ...relative);
