// Exactly-once processing of provider events: a handler's database work and the event's record in
// one transaction, unless it is recorded already (`duplicate`). Provider reads come before it; when
// it finds the stored state moved, it rolls back and the service reads again. A failure rolls back
// and is rethrown, so the provider retries; an event that cannot be translated is recorded once as
// `ignored`, since redelivering it would fail the same way.
import type { PaymentEvent, UnmappableEvent } from '../model/payment-events.ts';
import type { WebhookEventRecord } from '../model/handled-events.ts';
import { DomainError, UnmappableAnswer } from '../errors.ts';
import type { CreditsPolicy } from '../credits/credit-packs.ts';
import type { EventPolicy } from '../events/subject-changes.ts';
import type { EventLedger } from '../ports/event-ledger.ts';
import type { Logger } from '../ports/logger.ts';
import type { Metrics } from '../ports/metrics.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { Store } from '../ports/store.ts';
import { NO_TRACING, type Tracing } from '../ports/tracing.ts';
import type { WebhookVerifier } from '../ports/webhook-verifier.ts';
import { handlerFor, isHandled, type BoundHandler } from './handlers/index.ts';
import { DecideAgain, DeliveryReads, ReadNeeded } from './delivery-reads.ts';
import { deliveryNotes } from './delivery-notes.ts';

export type WebhookOutcome = 'processed' | 'duplicate' | 'ignored';

export interface WebhookSettings {
  livemode: boolean;
}

export interface WebhookServiceOptions {
  ledger: EventLedger;
  store: Pick<Store, 'subscriptions' | 'checkoutSessions'>;
  verifier: WebhookVerifier;
  payments: PaymentsProvider;
  settings: WebhookSettings;
  /** How the changes events make are told to the application. */
  policy: EventPolicy;
  credits: CreditsPolicy;
  log: Logger;
  metrics: Metrics;
  /** The delivery's event and outcome, told the request's trace. */
  tracing?: Tracing;
}

/** Each further attempt needs another writer to have changed the subscription meanwhile. */
const MAX_ATTEMPTS = 5;

export class WebhookService {
  private readonly ledger: EventLedger;
  private readonly store: Pick<Store, 'subscriptions' | 'checkoutSessions'>;
  private readonly verifier: WebhookVerifier;
  private readonly settings: WebhookSettings;
  private readonly log: Logger;
  private readonly metrics: Metrics;
  private readonly payments: PaymentsProvider;
  private readonly policy: EventPolicy;
  private readonly credits: CreditsPolicy;
  private readonly tracing: Tracing;

  constructor(options: WebhookServiceOptions) {
    this.ledger = options.ledger;
    this.store = options.store;
    this.verifier = options.verifier;
    this.settings = options.settings;
    this.log = options.log;
    this.metrics = options.metrics;
    this.payments = options.payments;
    this.policy = options.policy;
    this.credits = options.credits;
    this.tracing = options.tracing ?? NO_TRACING;
  }

  /**
   * Verifies and processes one delivery. A redelivery of an event this process remembers recorded
   * is answered before its body is parsed.
   */
  async receive(rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    const delivery = this.verifier.verify(rawBody, signature);
    const remembered = delivery.id === null ? undefined : this.ledger.rememberedType(delivery.id);
    if (remembered === undefined) return this.process(delivery.event());
    this.metrics.webhookEvent(remembered, 'duplicate', null);
    this.tracing.request().set(deliveryNotes({ id: delivery.id!, type: remembered }, 'duplicate'));
    return 'duplicate';
  }

  /** Processes an already verified event (deliveries and replays of undelivered events). */
  async process(event: PaymentEvent): Promise<WebhookOutcome> {
    const request = this.tracing.request();
    const outcome = await this.processOnce(event).catch((error: unknown) => {
      request.set(deliveryNotes(event, 'failed'));
      throw error;
    });
    request.set(deliveryNotes(event, outcome));
    this.metrics.webhookEvent(
      event.type,
      outcome,
      outcome === 'processed' ? Date.now() / 1000 - event.created : null,
    );
    return outcome;
  }

  private async processOnce(received: PaymentEvent): Promise<WebhookOutcome> {
    if (received.livemode !== this.settings.livemode) {
      this.log.warn(
        { event: received.id, livemode: received.livemode },
        'event from the other mode: acknowledged, ignored',
      );
      return 'ignored';
    }
    let event = received;
    if (event.kind === 'object_notice' && isHandled(event.type)) {
      // Its object is read only for a new event: a recorded one is answered from the record.
      if (await this.ledger.isRecorded(event.id)) return 'duplicate';
      try {
        event = await this.payments.completeNotice(event);
      } catch (error) {
        await this.recordFailure(event, error);
        throw error;
      }
    }
    if (event.kind === 'unmappable') return this.unmappable(event);
    const handler = handlerFor(event);
    const outcome = handler ? 'processed' : 'ignored';
    const record: WebhookEventRecord = {
      id: event.id,
      type: event.type,
      livemode: event.livemode,
      outcome,
      created: event.created,
    };
    try {
      const recorded = handler
        ? await this.handle(event, handler, record)
        : await this.ledger.recordOnce(record, async () => {});
      return recorded ? outcome : 'duplicate';
    } catch (error) {
      if (error instanceof UnmappableAnswer)
        return this.unmappable({ ...event, kind: 'unmappable', reason: error.message });
      await this.recordFailure(event, error);
      throw error;
    }
  }

  /** Acknowledged and recorded once; the reason goes to the failures and the log, the first time only. */
  private async unmappable(event: UnmappableEvent): Promise<WebhookOutcome> {
    const recorded = await this.ledger.recordOnce(
      {
        id: event.id,
        type: event.type,
        livemode: event.livemode,
        outcome: 'ignored',
        created: event.created,
      },
      async () => {},
    );
    if (!recorded) return 'duplicate';
    this.log.warn(
      { event: event.id, type: event.type, reason: event.reason },
      'event the service cannot translate: acknowledged, not applied',
    );
    await this.ledger
      .recordFailure({
        eventId: event.id,
        type: event.type,
        error: `Unmappable: ${event.reason}`.slice(0, 1000),
      })
      .catch(() => {});
    return 'ignored';
  }

  private async handle(
    event: PaymentEvent,
    handler: BoundHandler,
    record: WebhookEventRecord,
  ): Promise<boolean> {
    const reads = new DeliveryReads(this.payments, event.created);
    await handler.prepare({
      store: this.store,
      reads,
      payments: this.payments,
      log: this.log,
      isRecorded: () => this.ledger.isRecorded(event.id),
    });
    for (let attempt = 1; ; attempt++) {
      try {
        const telling = { policy: this.policy, cause: null, now: new Date() };
        return await this.ledger.recordOnce(record, (tx) =>
          handler.apply({ tx, reads, log: this.log, telling, credits: this.credits }),
        );
      } catch (error) {
        if (!(error instanceof DecideAgain) || attempt === MAX_ATTEMPTS) throw error;
        if (error instanceof ReadNeeded)
          await reads.fetch(error.subscriptionId, error.observed, error.observedAt);
      }
    }
  }

  /** Kept outside the rolled-back transaction; a failure to record must not hide the original. */
  private async recordFailure(event: PaymentEvent, error: unknown): Promise<void> {
    this.metrics.webhookEvent(event.type, 'failed', null);
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    // A throttled read is logged once, by whoever answers for it (the HTTP layer, the replay).
    if (!(error instanceof DomainError && error.code === 'payments_throttled'))
      this.log.warn(
        { event: event.id, type: event.type, error: message },
        'webhook event failed; the provider will retry',
      );
    await this.ledger
      .recordFailure({ eventId: event.id, type: event.type, error: message.slice(0, 1000) })
      .catch(() => {});
  }
}
