// Translation of the objects a payment's events carry: a checkout session (a subscription's or a
// credit pack's), an invoice (what a paid period grants), a charge (what a refund takes back).
import type Stripe from 'stripe';
import type {
  ChargeEvent,
  CheckoutSessionEvent,
  InvoiceEvent,
} from '../../domain/model/payment-events.ts';
import { idOf, nonEmptyText, text, unixTime } from './stripe-fields.ts';

const MODES = ['payment', 'setup', 'subscription'] as const;
const PAYMENT_STATUSES = ['paid', 'unpaid', 'no_payment_required'] as const;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (!allowed.includes(value as T))
    throw new TypeError(`${field} is not one of ${allowed.join(', ')}`);
  return value as T;
}

function amount(value: unknown, field: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0)
    throw new TypeError(`${field} must be a non-negative integer`);
  return value as number;
}

export function toCheckoutSession(
  session: Stripe.Checkout.Session,
): CheckoutSessionEvent['session'] {
  // An organisation's session names it in its metadata; a user's names the user.
  const orgId = nonEmptyText(session.metadata?.org_id);
  const mode = oneOf(session.mode, MODES, 'session.mode');
  return {
    id: text(session.id, 'session.id'),
    userId: orgId === null ? nonEmptyText(session.client_reference_id) : null,
    orgId,
    customerId: idOf(session.customer, 'session.customer'),
    subscriptionId: idOf(session.subscription, 'session.subscription'),
    mode,
    paymentStatus: oneOf(session.payment_status, PAYMENT_STATUSES, 'session.payment_status'),
    creditPack: mode === 'payment' ? nonEmptyText(session.metadata?.credit_pack) : null,
    paymentIntentId: idOf(session.payment_intent, 'session.payment_intent'),
  };
}

/** The first line billing a price for a period: a subscription invoice's line for its item. */
function subscriptionLine(invoice: Stripe.Invoice): InvoiceEvent['invoice']['line'] {
  for (const line of invoice.lines?.data ?? []) {
    const price = idOf(line.pricing?.price_details?.price, 'line.pricing.price_details.price');
    if (price === null) continue;
    return {
      priceId: price,
      periodEnd: new Date(unixTime(line.period?.end, 'line.period.end') * 1000),
    };
  }
  return null;
}

export function toInvoice(invoice: Stripe.Invoice): InvoiceEvent['invoice'] {
  return {
    id: text(invoice.id, 'invoice.id'),
    billingReason: nonEmptyText(invoice.billing_reason),
    line: subscriptionLine(invoice),
  };
}

export function toCharge(charge: Stripe.Charge): ChargeEvent['charge'] {
  return {
    id: text(charge.id, 'charge.id'),
    paymentIntentId: idOf(charge.payment_intent, 'charge.payment_intent'),
    amount: amount(charge.amount, 'charge.amount'),
    amountRefunded: amount(charge.amount_refunded, 'charge.amount_refunded'),
  };
}
