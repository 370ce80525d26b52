// What a running development service tells the commands run beside it (`npm run token`, the
// operator CLI): where it listens, the issuer its development identity provider signs for, and
// where its payment simulator answers, in DATA_DIR/service.json. So a token or a `sync-user`
// is right for the service that runs, whatever PORT it was given, with nothing to repeat.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Type from 'typebox';
import Value from 'typebox/value';
import { ensureDataDir } from '../adapters/data-dir.ts';
import { isRunning, sameProcess, thisProcess } from '../adapters/process-identity.ts';

const TextOrNull = Type.Union([Type.String(), Type.Null()]);

const ServiceRecordSchema = Type.Object({
  pid: Type.Integer({ minimum: 1 }),
  /** When the process started (process-identity.ts), so a reused pid is not taken for it. */
  started: TextOrNull,
  /** The API's base URL, reachable from this machine. */
  url: Type.String(),
  /** The development identity provider's issuer; null with a real one. */
  issuer: TextOrNull,
  /** The embedded payment simulator's base URL; null with a real provider. */
  simulatorUrl: TextOrNull,
});

export type ServiceRecord = Type.Static<typeof ServiceRecordSchema>;

const recordFile = (dataDir: string) => join(dataDir, 'service.json');

/** Writes this process's record (whole, by a rename); the returned function removes it if still ours. */
export async function recordService(
  dataDir: string,
  record: Omit<ServiceRecord, 'pid' | 'started'>,
): Promise<() => Promise<void>> {
  const self = thisProcess();
  await ensureDataDir(dataDir);
  const aside = `${recordFile(dataDir)}.${process.pid}.tmp`;
  await writeFile(aside, `${JSON.stringify({ ...self, ...record })}\n`, { mode: 0o600 });
  await rename(aside, recordFile(dataDir));
  return async () => {
    if (sameProcess(await readRecord(dataDir), self))
      await rm(recordFile(dataDir), { force: true });
  };
}

/** The record as written, or null when there is none or it is not one we write. */
async function readRecord(dataDir: string): Promise<ServiceRecord | null> {
  try {
    const record: unknown = JSON.parse(await readFile(recordFile(dataDir), 'utf8'));
    return Value.Check(ServiceRecordSchema, record) ? record : null;
  } catch {
    return null;
  }
}

/**
 * The record of the service running on `dataDir`, or null when none runs (no record, or its
 * process is gone). Where this machine tells when a process started, a record must say it too.
 */
export async function runningService(dataDir: string): Promise<ServiceRecord | null> {
  const record = await readRecord(dataDir);
  if (record === null || (record.started === null && thisProcess().started !== null)) return null;
  return isRunning(record) ? record : null;
}
