// A background job every instance schedules and one instance at a time runs (exclusive-run.ts):
// each instance looks every little while whether the job is due (its last complete run, on any
// instance, ended `everyMs` ago or more) and nobody runs it; the first to claim it runs it. So the
// job runs about once per `everyMs` however many instances there are, and a run that fails is
// tried again at a later look. Each look also reports the last complete run (metrics).
import type { JobLeases, LastRun } from '../ports/job-leases.ts';
import type { Logger } from '../ports/logger.ts';
import { runExclusively } from './exclusive-run.ts';

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
/** Each wait is this much longer or shorter at random, so instances do not look in step. */
const JITTER = 0.2;

export class ScheduledJob {
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<void> | null = null;
  private readonly closing = new AbortController();

  constructor(private readonly options: ScheduledJobOptions) {}

  start(): void {
    this.next(FIRST_LOOK_MS);
  }

  /** Looks now (and runs the job if it is due and free); resolves when that is over. */
  async look(): Promise<void> {
    const { job, everyMs, leases, holder, log } = this.options;
    const started = performance.now();
    try {
      const outcome = await runExclusively({
        leases,
        job,
        holder,
        dueAfterMs: everyMs,
        signal: this.closing.signal,
        work: (signal) => this.options.run(signal),
        report: (result) => result,
      });
      if (outcome.ran) {
        const idle = Object.values(outcome.value).every((figure) => figure === 0);
        const write = this.options.quietWhenIdle && idle ? log.debug : log.info;
        write.call(
          log,
          { job, ...outcome.value, ms: Math.round(performance.now() - started) },
          `${job}: complete run`,
        );
      }
    } catch (error) {
      if (!this.closing.signal.aborted)
        log.warn(
          { job, err: error instanceof Error ? error.message : String(error) },
          `${job} failed; a later look tries again`,
        );
    }
    const last = await leases.lastRun(job).catch(() => null);
    if (last !== null) this.options.onLastRun?.(last);
  }

  /** No more looks; a run in progress stops at its next step. */
  async stop(): Promise<void> {
    this.closing.abort(new Error('the service is closing'));
    if (this.timer !== null) clearTimeout(this.timer);
    await this.looking;
  }

  private next(ms: number): void {
    if (this.closing.signal.aborted) return;
    const wait = ms * (1 - JITTER + 2 * JITTER * Math.random());
    this.timer = setTimeout(() => {
      this.looking = this.look().finally(() => {
        this.looking = null;
        this.next(lookEvery(this.options.everyMs));
      });
    }, wait);
    this.timer.unref();
  }
}
