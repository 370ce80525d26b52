// Exactly-once processing of provider events, in two phases inside one transaction: the handler
// runs, then the event record is written. A handler failure rolls both back and is rethrown (the
// HTTP layer answers 500, so the provider retries). Concurrent deliveries of one event take
// turns (the store serialises them per event id); whoever comes second finds the record and
// answers `duplicate` without running the handler.
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentEvent, WebhookEventRecord } from '../model.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import type { WebhookVerifier } from '../ports/webhook-verifier.ts';
import type { WebhookLog } from './context.ts';
import { EVENT_HANDLERS } from './handlers/index.ts';
import { RedeliveryShare } from './redelivery-share.ts';

export type WebhookOutcome = 'processed' | 'duplicate' | 'ignored';

export interface WebhookSettings {
  livemode: boolean;
}

export class WebhookService {
  private readonly redeliveries = new RedeliveryShare();

  constructor(
    private readonly store: Store,
    private readonly verifier: WebhookVerifier,
    private readonly payments: PaymentsProvider,
    private readonly settings: WebhookSettings,
    private readonly log: WebhookLog,
    private readonly metrics: Metrics,
  ) {}

  /** Verifies and processes one delivery. */
  async receive(rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    return this.process(this.verifier.verify(rawBody, signature));
  }

  /** Processes an already verified event (deliveries and replays of undelivered events). */
  async process(event: PaymentEvent): Promise<WebhookOutcome> {
    const outcome = await this.processOnce(event);
    this.metrics.webhookEvent(event.type, outcome, outcome === 'processed' ? Date.now() / 1000 - event.created : null);
    return outcome;
  }

  private async processOnce(event: PaymentEvent): Promise<WebhookOutcome> {
    if (event.livemode !== this.settings.livemode) {
      this.log.warn({ event: event.id, livemode: event.livemode }, 'event from the other mode: acknowledged, ignored');
      return 'ignored';
    }
    // A committed record is final: when redeliveries are the rule, one read answers them.
    if (this.redeliveries.mostlyRedeliveries && (await this.store.webhookEvents.isRecorded(event.id))) {
      this.redeliveries.observe(true);
      return 'duplicate';
    }
    const handler = Object.hasOwn(EVENT_HANDLERS, event.type) ? EVENT_HANDLERS[event.type] : undefined;
    const outcome = handler ? 'processed' : 'ignored';
    const record: WebhookEventRecord = { id: event.id, type: event.type, livemode: event.livemode, outcome, created: event.created };
    try {
      const recorded = await this.store.handleThenRecord(record, async (tx) => {
        if (handler) await handler(event, { tx, payments: this.payments, log: this.log, now: new Date() });
      });
      this.redeliveries.observe(!recorded);
      return recorded ? outcome : 'duplicate';
    } catch (error) {
      await this.recordFailure(event, error);
      throw error;
    }
  }

  /** Kept outside the rolled-back transaction; a failure to record must not hide the original. */
  private async recordFailure(event: PaymentEvent, error: unknown): Promise<void> {
    this.metrics.webhookEvent(event.type, 'failed', null);
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.log.warn({ event: event.id, type: event.type, error: message }, 'webhook event failed; the provider will retry');
    await this.store.webhookFailures.record({ eventId: event.id, type: event.type, error: message.slice(0, 1000) }).catch(() => {});
  }
}
