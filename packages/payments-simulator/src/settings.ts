// What a person can switch on the dashboard (and a script through /_sim/settings), as Stripe's own
// settings: the payload style of the webhook endpoint (a snapshot endpoint, or an event destination
// with thin payloads) and the account's "pause the subscription after a failed renewal". Kept in
// memory: a restart goes back to the options the simulator was started with.
import type { FormObject } from './form.ts';
import { allowOnly, flag, oneOf } from './params.ts';

/** `snapshot`: v1 events with the object (`"object": "event"`); `thin`: v2 notifications (`"object": "v2.core.event"`). */
export type WebhookPayload = 'snapshot' | 'thin';
export const WEBHOOK_PAYLOADS: readonly WebhookPayload[] = ['snapshot', 'thin'];

export interface SimSettings {
  webhookPayload: WebhookPayload;
  /**
   * After a renewal's first failed payment, pause the subscription (`status: paused`) instead of
   * leaving it `past_due`; paying the open invoice resumes it.
   */
  pauseOnPaymentFailure: boolean;
}

/** Applies `webhook_payload` and `pause_on_payment_failure` from a form (the dashboard's, or /_sim/settings). */
export function changeSettings(settings: SimSettings, params: FormObject): void {
  allowOnly(params, ['webhook_payload', 'pause_on_payment_failure']);
  const payload = oneOf(params, 'webhook_payload', WEBHOOK_PAYLOADS);
  const pause = flag(params, 'pause_on_payment_failure');
  if (payload !== undefined) settings.webhookPayload = payload;
  if (pause !== undefined) settings.pauseOnPaymentFailure = pause;
}
