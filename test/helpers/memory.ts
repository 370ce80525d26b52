// Samples the memory of service processes while a test loads them: resident set size from
// /proc/<pid>/status (Linux), and V8's used heap from the service's own /metrics when it has one.
import { readFile } from 'node:fs/promises';

export interface MemorySample {
  /** Milliseconds since sampling started. */
  at: number;
  rssMb: number;
  heapMb: number | null;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

async function heapMb(baseUrl: string): Promise<number | null> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(2_000) });
    const value = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(
      await response.text(),
    )?.[1];
    return value === undefined ? null : Number(value) / 2 ** 20;
  } catch {
    return null;
  }
}

export interface MemorySampler {
  /** One series per process, in the order given. */
  series: MemorySample[][];
  stop(): Promise<void>;
}

export function sampleMemory(
  processes: { pid: number; url: string }[],
  everyMs: number,
): MemorySampler {
  const started = Date.now();
  const series: MemorySample[][] = processes.map(() => []);
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        processes.map(async ({ pid, url }, i) => {
          const [rss, heap] = await Promise.all([rssMb(pid), heapMb(url)]);
          series[i]!.push({ at: Date.now() - started, rssMb: rss, heapMb: heap });
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    series,
    async stop() {
      running = false;
      await loop;
    },
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!;
};

/**
 * A measure over the first and second halves of the time after warm-up: the medians, and the floors
 * (the lowest values; for the heap, what survives garbage collection, which is what a leak raises).
 */
export function halves(
  samples: MemorySample[],
  warmUpMs: number,
  pick: (sample: MemorySample) => number | null,
) {
  const settled = samples.filter((s) => s.at >= warmUpMs && pick(s) !== null);
  const middle = settled.length === 0 ? 0 : (settled[0]!.at + settled.at(-1)!.at) / 2;
  const early = settled.filter((s) => s.at < middle).map((s) => pick(s)!);
  const late = settled.filter((s) => s.at >= middle).map((s) => pick(s)!);
  return {
    early: median(early),
    late: median(late),
    earlyFloor: Math.min(...early),
    lateFloor: Math.min(...late),
    max: Math.max(...samples.map((s) => pick(s) ?? 0)),
  };
}
