// A subscription's invoices as its lifecycle makes them: numbered in the customer's sequence,
// stored, and announced as Stripe announces a new invoice: invoice.created (the draft),
// invoice.finalized (open), then invoice.paid or invoice.payment_failed.
import type Stripe from 'stripe';
import type { Unit } from './context.ts';
import { takeInvoiceNumber } from './objects/customers.ts';
import { buildInvoice, earlierStages } from './objects/invoices.ts';
import { adjustmentsOf } from './objects/offers.ts';
import { customerIdOf } from './objects/subscriptions.ts';

/** The customer's next invoice number; the customer, locked, is stored moved past it. */
export async function nextInvoiceNumber(
  unit: Unit,
  customerId: string,
): Promise<{ number: string; customer: Stripe.Customer }> {
  const { data } = await unit.docs.require<Stripe.Customer>('customer', customerId, {
    lock: true,
  });
  const taken = takeInvoiceNumber(data);
  await unit.docs.save('customer', taken.customer);
  return taken;
}

export interface PeriodInvoice {
  paid: boolean;
  /** Unix seconds: when it is made (and paid). */
  at: number;
  reason?: 'subscription_cycle' | 'subscription_update';
}

/** The subscription's invoice for its current period, with its discount and tax, stored. */
export async function invoiceFor(
  unit: Unit,
  subscription: Stripe.Subscription,
  { paid, at, reason = 'subscription_cycle' }: PeriodInvoice,
): Promise<Stripe.Invoice> {
  const taken = await nextInvoiceNumber(unit, customerIdOf(subscription));
  const invoice = buildInvoice({
    subscription,
    customer: taken.customer,
    reason,
    paid,
    at,
    number: taken.number,
    adjustments: await adjustmentsOf(unit.docs, subscription),
  });
  await unit.docs.save('invoice', invoice);
  return invoice;
}

/**
 * A new invoice's events: invoice.created and invoice.finalized with the invoice as it was then,
 * and the payment's outcome; none while the payment is still to come (an incomplete subscription).
 */
export async function announceInvoice(
  unit: Unit,
  invoice: Stripe.Invoice,
  payment: 'paid' | 'failed' | 'awaited',
): Promise<void> {
  const { draft, open } = earlierStages(invoice);
  await unit.emit('invoice.created', draft);
  await unit.emit('invoice.finalized', open);
  if (payment === 'paid') await unit.emit('invoice.paid', invoice);
  if (payment === 'failed') await unit.emit('invoice.payment_failed', invoice);
}
