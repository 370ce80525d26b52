// Cards: the one a checkout takes stays attached to the customer, as at Stripe; the portal's
// "Update card" attaches a new (simulated) one that becomes the customer's default payment method
// and that of each live subscription, with the events Stripe sends: payment_method.attached,
// customer.updated, then customer.subscription.updated per subscription whose default changed.
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { previousAttributes, type Trigger } from './events.ts';
import { newId } from './ids.ts';
import type { Documents } from './store.ts';
import { ENDED, locked, update } from './subscription-lifecycle.ts';
import { nowSeconds } from './time.ts';

/** Stripe's test cards a person may pick, by their last four digits. */
export const TEST_CARDS: Record<string, { brand: string; label: string }> = {
  '4242': { brand: 'visa', label: 'Visa' },
  '4444': { brand: 'mastercard', label: 'Mastercard' },
  '0005': { brand: 'amex', label: 'American Express' },
};

function buildCard(customer: Stripe.Customer, last4: string, brand: string): Stripe.PaymentMethod {
  return {
    id: newId('pm_'),
    object: 'payment_method',
    allow_redisplay: 'always',
    billing_details: {
      address: null,
      email: customer.email,
      name: customer.name ?? null,
      phone: null,
      tax_id: null,
    },
    card: {
      brand,
      checks: null,
      country: 'US',
      display_brand: brand,
      exp_month: 12,
      exp_year: 2034,
      funding: 'credit',
      generated_from: null,
      last4,
      networks: { available: [brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: nowSeconds(),
    customer: customer.id,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: 'card',
  };
}

export function updateCard(
  ctx: SimContext,
  customerId: string,
  last4: string,
  trigger: Trigger,
): Promise<Outcome<Stripe.PaymentMethod>> {
  if (TEST_CARDS[last4] === undefined)
    return Promise.reject(
      invalidParam(
        `Unknown test card ending ${last4}; use one of ${Object.keys(TEST_CARDS).join(', ')}.`,
        'card',
      ),
    );
  return mutate(ctx, trigger, (unit) => applyCard(unit, customerId, last4));
}

/** A test card (by its last four digits) attached to the customer, stored. */
export async function attachCard(
  docs: Documents,
  customer: Stripe.Customer,
  last4: string,
): Promise<Stripe.PaymentMethod> {
  const method = buildCard(customer, last4, TEST_CARDS[last4]!.brand);
  await docs.save('payment_method', method);
  return method;
}

/** In a unit of work: the card becomes the customer's default and its live subscriptions'. */
export async function applyCard(
  unit: Unit,
  customerId: string,
  last4: string,
): Promise<Stripe.PaymentMethod> {
  const before = (await unit.docs.require<Stripe.Customer>('customer', customerId, { lock: true }))
    .data;
  const method = await attachCard(unit.docs, before, last4);
  await unit.emit('payment_method.attached', method);
  const after: Stripe.Customer = {
    ...before,
    invoice_settings: { ...before.invoice_settings, default_payment_method: method.id },
  };
  await unit.docs.save('customer', after);
  await unit.emit('customer.updated', after, previousAttributes(before, after));
  const { data } = await unit.docs.list<Stripe.Subscription>(
    'subscription',
    { customer: customerId },
    { limit: 100 },
  );
  for (const { data: listed } of data) {
    if (ENDED.includes(listed.status)) continue;
    const subscription = await locked(unit, listed.id);
    await update(unit, subscription, { ...subscription, default_payment_method: method.id });
  }
  return method;
}

/**
 * The customer's card as the portal shows it: "Visa •••• 4242", the default payment method, else
 * the card attached last (the checkout's, say); "No card on file" when none was ever attached (a
 * trial started without a card).
 */
export async function cardLabel(ctx: SimContext, customer: Stripe.Customer): Promise<string> {
  const id = customer.invoice_settings?.default_payment_method;
  const method =
    typeof id === 'string'
      ? (await ctx.docs.get<Stripe.PaymentMethod>('payment_method', id))?.data
      : (
          await ctx.docs.list<Stripe.PaymentMethod>(
            'payment_method',
            { customer: customer.id },
            { limit: 1 },
          )
        ).data[0]?.data;
  if (method?.card == null) return 'No card on file';
  const { last4, brand } = method.card;
  return `${TEST_CARDS[last4]?.label ?? brand} •••• ${last4}`;
}
