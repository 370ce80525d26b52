// Paying a checkout session in payment mode (a one-time price): no subscription, no invoice; the
// PaymentIntent is created now, as Checkout creates it when the customer pays, with its Charge. A
// card succeeds at once: payment_intent.created, charge.succeeded, payment_intent.succeeded, then
// checkout.session.completed (paid). A US bank account debit settles days later (a control settles
// or fails it: payment-settlement.ts): payment_intent.created, charge.pending,
// payment_intent.processing, then checkout.session.completed with payment_status unpaid.
import type Stripe from 'stripe';
import type { Unit } from './context.ts';
import { newId } from './ids.ts';
import type { SessionExtra } from './objects/checkout.ts';
import { buildCustomer } from './objects/customers.ts';
import { buildCharge, type Payer } from './objects/payment-charges.ts';
import {
  buildPaymentIntent,
  confirmedIntent,
  type IntentData,
  type PaymentMethodType,
} from './objects/payment-intents.ts';
import type { Documents } from './store.ts';

type Session = Stripe.Checkout.Session;

export interface OneTimePaid {
  paid: true;
  session: Session;
  payment_intent: Stripe.PaymentIntent;
  charge: Stripe.Charge;
}

/** How the page's Pay was pressed: when, the e-mail typed (if asked for), and with what. */
export interface Payment {
  at: number;
  email: string | undefined;
  method: PaymentMethodType;
}

/** What the simulator keeps beside an intent: the checkout session that made it. */
export interface IntentExtra {
  checkout_session: string | null;
}

const NO_INTENT_DATA: IntentData = {
  metadata: {},
  description: null,
  receipt_email: null,
  statement_descriptor: null,
  statement_descriptor_suffix: null,
};

/**
 * Who pays: the session's customer; else, with customer_creation=always, a new customer with the
 * session's or the typed e-mail; else a guest (Checkout keeps no customer for them).
 */
async function payerOf(
  docs: Documents,
  session: Session,
  typed: string | undefined,
): Promise<Payer & { customer: string | null }> {
  if (typeof session.customer === 'string') {
    const { data } = await docs.require<Stripe.Customer>('customer', session.customer);
    return { customer: data.id, email: data.email, name: data.name ?? null };
  }
  const email = session.customer_email ?? typed ?? null;
  if (session.customer_creation !== 'always') return { customer: null, email, name: null };
  const customer = buildCustomer({ email: email ?? undefined });
  await docs.save('customer', customer);
  return { customer: customer.id, email, name: null };
}

function completed(session: Session, intent: Stripe.PaymentIntent, payer: Payer): Session {
  return {
    ...session,
    status: 'complete',
    payment_status: intent.status === 'succeeded' ? 'paid' : 'unpaid',
    customer: intent.customer,
    customer_details: {
      address: null,
      business_name: null,
      email: payer.email,
      individual_name: null,
      name: payer.name,
      phone: null,
      tax_exempt: 'none',
      tax_ids: [],
    },
    payment_intent: intent.id,
    url: null,
  };
}

/** The Pay button of an open session in payment mode (the session row is locked by the caller). */
export async function payOnce(
  unit: Unit,
  open: Session,
  extra: SessionExtra,
  { at, email, method }: Payment,
): Promise<OneTimePaid> {
  const payer = await payerOf(unit.docs, open, email);
  const created = buildPaymentIntent({
    amount: open.amount_total ?? 0,
    currency: open.currency ?? 'usd',
    customer: payer.customer,
    data: extra.payment_intent_data ?? NO_INTENT_DATA,
    paymentMethodTypes: open.payment_method_types,
    created: at,
  });
  const charge = buildCharge({
    intent: created,
    method,
    paymentMethod: newId('pm_'),
    payer,
    created: at,
  });
  const intent = confirmedIntent(created, charge);
  const made: IntentExtra = { checkout_session: open.id };
  await unit.docs.save('payment_intent', intent, made as unknown as Record<string, unknown>);
  await unit.docs.save('charge', charge);
  const session = completed(open, intent, payer);
  await unit.docs.save('checkout.session', session);
  await unit.emit('payment_intent.created', created);
  const settled = charge.status === 'succeeded';
  await unit.emit(settled ? 'charge.succeeded' : 'charge.pending', charge);
  await unit.emit(settled ? 'payment_intent.succeeded' : 'payment_intent.processing', intent);
  await unit.emit('checkout.session.completed', session);
  return { paid: true, session, payment_intent: intent, charge };
}
