// One instance at a time: runs a job under its lease (ports/job-leases.ts), renewed while the work
// runs and given up at the end, recording a complete run with what the work reported. The work
// gets a signal, aborted when the lease is lost (this holder failed to renew in time and another
// instance took over) or the caller aborts (the process is closing); it stops between steps.
import type { JobLeases } from '../ports/job-leases.ts';

/** A holder that stops renewing (it died) is replaced after this long, unless the caller says. */
export const LEASE_MS = 60_000;

export type ExclusiveRun<T> = { ran: true; value: T } | { ran: false };

export interface ExclusiveRunOptions<T> {
  leases: JobLeases;
  job: string;
  /** Who runs it, as the leases name holders. */
  holder: string;
  /** Due when its last complete run ended this long ago (0: whenever nobody runs it). */
  dueAfterMs: number;
  /** The lease's length, renewed every third of it; LEASE_MS unless given. */
  leaseMs?: number;
  signal?: AbortSignal;
  work: (signal: AbortSignal) => Promise<T>;
  /** What the record of a complete run keeps of its value. */
  report: (value: T) => Record<string, number>;
}

export async function runExclusively<T>({
  leases,
  job,
  holder,
  dueAfterMs,
  leaseMs = LEASE_MS,
  signal,
  work,
  report,
}: ExclusiveRunOptions<T>): Promise<ExclusiveRun<T>> {
  if (!(await leases.claim(job, holder, leaseMs, dueAfterMs))) return { ran: false };
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const heartbeat = setInterval(() => {
    leases.renew(job, holder, leaseMs).then(
      (held) => held || stop.abort(new Error(`another instance took over the ${job} lease`)),
      () => {}, // the database is unreachable: the work meets that too
    );
  }, leaseMs / 3);
  heartbeat.unref();
  try {
    const value = await work(stop.signal);
    await leases.release(job, holder, report(value));
    return { ran: true, value };
  } catch (error) {
    await leases.release(job, holder).catch(() => {});
    throw error;
  } finally {
    clearInterval(heartbeat);
    signal?.removeEventListener('abort', onAbort);
  }
}
