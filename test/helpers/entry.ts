// What the tests run as a process. `npm test` builds the service once (scripts/build.mjs into
// TEST_BUILT_DIR), and every service or operator command a test spawns is then plain node on that
// build, as production runs it, starting in a third of the time tsx takes; a test file run alone
// (`node --import tsx --test FILE`) runs the TypeScript through tsx instead.
import { join } from 'node:path';

const builtDir = process.env.TEST_BUILT_DIR;

/** The arguments to node that run the service (`server`) or the operator CLI (`cli`). */
export function nodeArgs(entry: 'server' | 'cli'): string[] {
  if (builtDir) return [join(builtDir, `${entry}.mjs`)];
  return ['--import', 'tsx', entry === 'server' ? 'src/server.ts' : 'src/cli/index.ts'];
}
