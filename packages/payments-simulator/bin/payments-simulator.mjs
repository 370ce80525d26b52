#!/usr/bin/env node
// The `payments-simulator` command (`npx payments-simulator --help`). The simulator is written in
// TypeScript and shipped as such; tsx compiles it as it loads.
const tsx = await import('tsx/esm/api').catch(() => null);
if (tsx === null) {
  console.error(
    'payments-simulator: needs tsx beside it (npm install --save-dev tsx): the simulator is shipped as TypeScript',
  );
  process.exit(1);
}
tsx.register();
await import('../src/cli.ts');
