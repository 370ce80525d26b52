// What the development receiver of outbound events was sent, kept in DATA_DIR/app-events.jsonl so
// its page survives a restart (and every process of WEB_CONCURRENCY lists the same arrivals). One
// JSON line per arrival, appended; once the file holds twice what is shown, it is rewritten to the
// newest lines through a file aside and a rename, so a reader never meets half a file. A line
// left torn by a crash does not parse and is skipped.
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureDataDir } from '../adapters/data-dir.ts';

export interface Arrival {
  receivedAt: string;
  id: string;
  /** Null when verified; otherwise why it was refused. */
  problem: string | null;
  body: string;
}

export interface ArrivalLog {
  /** The newest `kept` arrivals, newest first. */
  recent(): Promise<Arrival[]>;
  /** Keeps a refused arrival always, a verified one unless its id was already verified (a retry). */
  record(arrival: Arrival): Promise<void>;
}

const parsed = (line: string): Arrival | null => {
  try {
    const value = JSON.parse(line) as Arrival;
    return typeof value.id === 'string' && typeof value.body === 'string' ? value : null;
  } catch {
    return null;
  }
};

export function arrivalLog(dataDir: string, kept = 200): ArrivalLog {
  const file = join(dataDir, 'app-events.jsonl');
  const lines = async (): Promise<string[]> =>
    (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
  const recent = async () =>
    (await lines())
      .map(parsed)
      .filter((a): a is Arrival => a !== null)
      .slice(-kept)
      .reverse();

  const compactIfLong = async () => {
    const all = await lines();
    if (all.length <= 2 * kept) return;
    const aside = `${file}.${process.pid}.tmp`;
    await writeFile(aside, `${all.slice(-kept).join('\n')}\n`, { mode: 0o600 });
    await rename(aside, file);
  };

  // One write at a time in this process: a check for a retry and its append are not interleaved.
  let queue: Promise<unknown> = Promise.resolve();
  const record = (arrival: Arrival) => {
    const next = queue.then(async () => {
      const retry =
        arrival.problem === null &&
        (await recent()).some((a) => a.id === arrival.id && a.problem === null);
      if (retry) return;
      await ensureDataDir(dataDir);
      await appendFile(file, `${JSON.stringify(arrival)}\n`, { mode: 0o600 });
      await compactIfLong();
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return { recent, record };
}
