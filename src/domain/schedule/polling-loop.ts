// One polling loop for the background work every instance runs (the scheduled jobs' looks, the
// seat engine, the outbound events' delivery): a pass, a wait (stretched at random, so instances do
// not look in step), the next pass. A pass that finds more waiting than it took asks for the next
// at once, and `wake()` brings the next forward when the work learns there is room. A pass that
// fails is logged and the next one tries again. `stop()` ends the waits, aborts the loop's signal
// (work that can stop between steps does) and resolves once the pass under way is over.
import type { Logger } from '../ports/logger.ts';
import { jittered, type Jitter } from './backoff.ts';

export interface PollingLoopOptions {
  /** Names the work in the log line of a failed pass. */
  name: string;
  log: Logger;
  /** The wait before the first pass. */
  firstMs: number;
  /** The wait after a pass. */
  everyMs: number;
  jitter?: Jitter;
  /** One pass; resolves to true when more is waiting (the next pass comes at once). */
  pass(signal: AbortSignal): Promise<boolean>;
}

const NO_JITTER: Jitter = { least: 0, most: 0 };

export class PollingLoop {
  private timer: NodeJS.Timeout | null = null;
  private passing: Promise<void> | null = null;
  private started = false;
  private readonly closing = new AbortController();

  constructor(private readonly options: PollingLoopOptions) {}

  /** Aborted when the loop stops (the instance is closing). */
  get signal(): AbortSignal {
    return this.closing.signal;
  }

  start(): void {
    this.started = true;
    this.next(this.options.firstMs);
  }

  /** The next pass at once, unless one is under way (it is followed by another anyway). */
  wake(): void {
    if (!this.started || this.passing !== null) return;
    this.next(0);
  }

  /** No more passes; resolves once the pass under way is over. */
  async stop(): Promise<void> {
    this.closing.abort(new Error('the service is closing'));
    if (this.timer !== null) clearTimeout(this.timer);
    await this.passing;
  }

  private next(ms: number): void {
    if (this.signal.aborted) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.passing = this.pass().then((more) => {
          this.passing = null;
          this.next(more ? 0 : this.options.everyMs);
        });
      },
      jittered(ms, this.options.jitter ?? NO_JITTER),
    );
    this.timer.unref();
  }

  private async pass(): Promise<boolean> {
    const { name, log } = this.options;
    try {
      return await this.options.pass(this.signal);
    } catch (error) {
      if (!this.signal.aborted)
        log.warn({ err: messageOf(error) }, `${name}: a pass failed; the next one tries again`);
      return false;
    }
  }
}

export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
