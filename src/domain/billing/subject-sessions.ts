// A subject's checkout sessions: the database decides which one is its one open session, and the
// others are expired at the provider so they can no longer be paid (a session replaced by a newer
// one of its subject, or one still open once its subject has a subscription: paying it would
// start a second subscription, and a second trial). A session already paid or expired is stored
// as the provider says.
import { createHash } from 'node:crypto';
import type { SubjectRef } from '../model/callers.ts';
import type { CheckoutOffer, CheckoutSessionRecord } from '../model/checkout.ts';
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutSessionsRepository } from '../ports/checkout-sessions.ts';

/** What a session sells and where it returns: two sessions alike in these are one checkout. */
export type SessionTarget = Pick<
  CheckoutSessionRecord,
  'priceId' | 'quantity' | 'successUrl' | 'cancelUrl' | 'trialDays'
>;

export const sellsTarget = (stored: SessionTarget, target: SessionTarget): boolean =>
  stored.priceId === target.priceId &&
  stored.quantity === target.quantity &&
  stored.successUrl === target.successUrl &&
  stored.cancelUrl === target.cancelUrl &&
  stored.trialDays === target.trialDays;

/**
 * In a transaction, records a session the provider made and answers the subject's one open
 * session: an identical one recorded meanwhile (the new one is then replaced), else the new one
 * (replacing one for another target). `replaced`: the sessions to expire at the provider.
 */
export async function recordSession(
  sessions: CheckoutSessionsRepository,
  record: CheckoutSessionRecord,
  now: Date,
): Promise<{ url: string; replaced: string[] }> {
  const open = await sessions.lockOpen(record.owner, now);
  if (open === null || open.id === record.id) {
    await sessions.insert(record);
    return { url: record.url, replaced: [] };
  }
  if (sellsTarget(open, record)) {
    await sessions.insert(record, 'replaced');
    return { url: open.url, replaced: [record.id] };
  }
  await sessions.markStatus(open.id, 'replaced');
  await sessions.insert(record);
  return { url: record.url, replaced: [open.id] };
}

export async function expireAtProvider(
  ids: readonly string[],
  payments: Pick<PaymentsProvider, 'expireCheckoutSession'>,
  sessions: Pick<CheckoutSessionsRepository, 'markStatus'>,
): Promise<void> {
  for (const id of ids) {
    const { status } = await payments.expireCheckoutSession(id);
    await sessions.markStatus(id, status);
  }
}

/** The URL of the subject's open session if it sells the same target and the provider agrees it is open. */
export async function openSession(
  sessions: Pick<CheckoutSessionsRepository, 'findOpen' | 'markStatus'>,
  payments: Pick<PaymentsProvider, 'retrieveCheckoutSession'>,
  owner: SubjectRef,
  target: SessionTarget,
  now: Date,
): Promise<string | null> {
  const stored = await sessions.findOpen(owner, now);
  if (!stored || !sellsTarget(stored, target)) return null;
  const current = await payments.retrieveCheckoutSession(stored.id);
  if (current.status === 'open') return stored.url;
  await sessions.markStatus(stored.id, current.status);
  return null;
}

/** A short digest of what a session sells, for its idempotency key at the provider. */
export const sessionDigest = (target: SessionTarget, offer: CheckoutOffer): string =>
  createHash('sha256')
    .update(JSON.stringify({ ...target, offer }))
    .digest('hex')
    .slice(0, 16);
