// A background job every instance schedules and one instance at a time runs (exclusive-run.ts):
// each instance looks every little while whether the job is due (its last complete run, on any
// instance, ended `everyMs` ago or more) and nobody runs it; the first to claim it runs it. So the
// job runs about once per `everyMs` however many instances there are, and a run that fails is
// tried again at a later look (the looks are a polling-loop.ts). Each look also reports the last
// complete run (metrics).
import type { JobLeases, LastRun } from '../ports/job-leases.ts';
import type { Logger } from '../ports/logger.ts';
import { LEASE_MS, runExclusively } from './exclusive-run.ts';
import { messageOf, PollingLoop } from './polling-loop.ts';

export interface ScheduledJobOptions {
  job: string;
  everyMs: number;
  leases: JobLeases;
  /** This instance's name in the lease. */
  holder: string;
  log: Logger;
  /** The work; resolves to the figures a complete run reports (and logs). */
  run(signal: AbortSignal): Promise<Record<string, number>>;
  /** Told at each look: the last complete run on any instance. */
  onLastRun?(last: LastRun): void;
  /** A frequent job: a run whose figures are all 0 is logged at debug, not info. */
  quietWhenIdle?: boolean;
}

/** The first look, soon after start-up; then looks every tenth of the interval, between 1 s and 1 min. */
const FIRST_LOOK_MS = 1_000;
const lookEvery = (everyMs: number) => Math.min(60_000, Math.max(1_000, everyMs / 10));
/**
 * The lease of a run: its interval, from 10 s to LEASE_MS. An instance that dies while it runs the
 * job holds it up for one interval at most, so a job due twice a minute (the tier clock, which says
 * a passed end within a minute) is not held up for a minute.
 */
const leaseFor = (everyMs: number) => Math.min(LEASE_MS, Math.max(10_000, everyMs));
/** Each wait is up to a fifth longer or shorter at random, so instances do not look in step. */
const JITTER = { least: -0.2, most: 0.2 };

export class ScheduledJob {
  private readonly loop: PollingLoop;

  constructor(private readonly options: ScheduledJobOptions) {
    this.loop = new PollingLoop({
      name: options.job,
      log: options.log,
      firstMs: FIRST_LOOK_MS,
      everyMs: lookEvery(options.everyMs),
      jitter: JITTER,
      pass: async () => {
        await this.look();
        return false;
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  /** No more looks; a run in progress stops at its next step. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Looks now (and runs the job if it is due and free); resolves when that is over. */
  async look(): Promise<void> {
    const { job, leases, log } = this.options;
    try {
      await this.runIfDue();
    } catch (error) {
      if (!this.loop.signal.aborted)
        log.warn({ job, err: messageOf(error) }, `${job} failed; a later look tries again`);
    }
    const last = await leases.lastRun(job).catch(() => null);
    if (last !== null) this.options.onLastRun?.(last);
  }

  /** The job's run, when it is due and nobody runs it; its figures logged. */
  private async runIfDue(): Promise<void> {
    const { job, everyMs, leases, holder, log } = this.options;
    const started = performance.now();
    const outcome = await runExclusively({
      leases,
      job,
      holder,
      dueAfterMs: everyMs,
      leaseMs: leaseFor(everyMs),
      signal: this.loop.signal,
      work: (signal) => this.options.run(signal),
      report: (result) => result,
    });
    if (!outcome.ran) return;
    const idle = Object.values(outcome.value).every((figure) => figure === 0);
    const write = this.options.quietWhenIdle && idle ? log.debug : log.info;
    const ms = Math.round(performance.now() - started);
    write.call(log, { job, ...outcome.value, ms }, `${job}: complete run`);
  }
}
