// A subscription's invoices as its lifecycle makes them: numbered in the customer's sequence,
// billing the prorations still pending for it, stored, and announced as Stripe announces a new
// invoice: invoice.created (the draft), invoice.finalized (open), then invoice.paid or
// invoice.payment_failed.
import type Stripe from 'stripe';
import type { Unit } from './context.ts';
import { takeInvoiceNumber } from './objects/customers.ts';
import { buildInvoice, earlierStages, lineOf, type LinePart } from './objects/invoices.ts';
import { adjustmentsOf } from './objects/offers.ts';
import { customerIdOf } from './objects/subscriptions.ts';
import type { Documents } from './store.ts';

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

/** Stripe bills at most 250 invoice items on one invoice; any more wait for the next. */
const ITEMS_PER_INVOICE = 250;

export interface Pending {
  /** The subscription's pending invoice items as lines bill them, oldest first. */
  parts: LinePart[];
  /** Stores them as billed by the invoice. */
  billedBy(invoiceId: string): Promise<void>;
}

/** The prorations the subscription's next invoice bills. */
export async function pendingFor(
  docs: Documents,
  subscription: Stripe.Subscription,
): Promise<Pending> {
  const found = await docs.list<Stripe.InvoiceItem>(
    'invoiceitem',
    { ref: subscription.id, status: ['pending'] },
    { limit: ITEMS_PER_INVOICE },
  );
  const items = found.data.map((each) => each.data).reverse();
  const parts = await Promise.all(
    items.map(async (item): Promise<LinePart> => {
      const billed = item.pricing!.price_details!.price;
      const priceId = typeof billed === 'string' ? billed : billed.id;
      const price = await docs.require<Stripe.Price>('price', priceId);
      return {
        price: price.data,
        amount: item.amount,
        description: item.description ?? '',
        period: item.period,
        quantity: item.quantity,
        invoiceItem: item.id,
        proration: true,
      };
    }),
  );
  return {
    parts,
    async billedBy(invoiceId) {
      for (const item of items) await docs.save('invoiceitem', { ...item, invoice: invoiceId });
    },
  };
}

/** The subscription's invoice for its current period and its pending prorations, stored. */
export async function invoiceFor(
  unit: Unit,
  subscription: Stripe.Subscription,
  { paid, at, reason = 'subscription_cycle' }: PeriodInvoice,
): Promise<Stripe.Invoice> {
  const pending = await pendingFor(unit.docs, subscription);
  const taken = await nextInvoiceNumber(unit, customerIdOf(subscription));
  const invoice = buildInvoice({
    subscription,
    customer: taken.customer,
    reason,
    paid,
    at,
    number: taken.number,
    adjustments: await adjustmentsOf(unit.docs, subscription),
    lines: (invoiceId) => [
      ...pending.parts.map((part) => lineOf(invoiceId, subscription, part)),
      lineOf(invoiceId, subscription),
    ],
  });
  await unit.docs.save('invoice', invoice);
  await pending.billedBy(invoice.id);
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
