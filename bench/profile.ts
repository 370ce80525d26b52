// Summarises a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --profile`) as text: where
// the self time goes by function, and by package or source file, plus the inclusive time of the
// frames that matter (a flame graph read sideways). For the picture, open the .cpuprofile in
// Chrome DevTools (Performance panel) or https://www.speedscope.app.
//   node --import tsx bench/profile.ts bench/results/profiles/CPU.*.cpuprofile [--top=25]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 25);

/** node_modules/<package>, a file of ours, or a V8/Node category. */
function moduleOf(url: string, name: string): string {
  if (url === '') return `(${name || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  // The built service shows as its dist/ chunks; BENCH_SERVICE_ENTRY=src/server.ts gives source files.
  const ours = /\/((?:src|bench|test|dist)\/.+)$/.exec(url);
  return ours ? ours[1]! : url;
}

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1).padStart(5)}%`;

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self]
    .filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)')
    .reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;

  const selfByFunction = new Map<string, number>();
  const selfByModule = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, time] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    const key = `${functionName || '(anonymous)'}  ${moduleOf(url, functionName)}:${lineNumber + 1}`;
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + time);
    const module = moduleOf(url, functionName);
    selfByModule.set(module, (selfByModule.get(module) ?? 0) + time);
    // Inclusive time per module: count each module once per stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const m = moduleOf(frame.url, frame.functionName);
      if (!seen.has(m)) {
        seen.add(m);
        inclusive.set(m, (inclusive.get(m) ?? 0) + time);
      }
    }
  }
  const list = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, time]) =>
          `  ${pct(time, busy)}  ${(time / 1000).toFixed(0).padStart(7)} ms  ${name}`,
      )
      .join('\n');
  console.log(
    `${file}\n  ${(total / 1e6).toFixed(1)} s profiled, ${(busy / 1e6).toFixed(1)} s busy (${pct(busy, total).trim()}); percentages are of busy time\n`,
  );
  console.log(`self time by function:\n${list(selfByFunction)}\n`);
  console.log(`self time by package / file:\n${list(selfByModule)}\n`);
  console.log(`inclusive time by package / file (on the stack):\n${list(inclusive)}\n`);
}
