// What happens to a checkout session after it is created: paid on the hosted page (customer,
// subscription, paid invoice, then checkout.session.completed, customer.subscription.created and
// invoice.paid, in that order; in payment mode a payment instead: checkout-payment.ts), or
// expired (by the API, or lazily once expires_at has passed).
// A session with a trial starts a trialing subscription with a $0 invoice, and collects no card
// when payment_method_collection=if_required; a redeemed code becomes the subscription's discount;
// automatic tax is on the subscription and its invoices.
import type Stripe from 'stripe';
import { attachCard } from './card-update.ts';
import { payOnce, type OneTimePaid } from './checkout-payment.ts';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { AUTOMATIC, previousAttributes, type Trigger } from './events.ts';
import type { SessionExtra } from './objects/checkout.ts';
import { buildCustomer, takeInvoiceNumber } from './objects/customers.ts';
import { SIMULATED_ADDRESS } from './objects/offers.ts';
import type { PaymentMethodType } from './objects/payment-intents.ts';
import { buildSubscription, periodEndOf } from './objects/subscriptions.ts';
import type { Documents, Stored } from './store.ts';
import {
  announceTrialEndingSoon,
  startSubscription,
  trialEndOf,
  type Start,
} from './subscription-start.ts';
import { nowSeconds } from './time.ts';

type Session = Stripe.Checkout.Session;

export type PayResult =
  | { paid: true; session: Session; subscription: Stripe.Subscription; invoice: Stripe.Invoice }
  | OneTimePaid
  | { paid: false; session: Session };

async function expireLocked(unit: Unit, session: Session): Promise<Session> {
  const expired: Session = { ...session, status: 'expired', url: null };
  await unit.docs.save('checkout.session', expired);
  await unit.emit('checkout.session.expired', expired);
  return expired;
}

/** POST /v1/checkout/sessions/:id/expire: only an open session can be expired. */
export function expireSession(
  ctx: SimContext,
  id: string,
  trigger: Trigger,
): Promise<Outcome<Session>> {
  return mutate(ctx, trigger, async (unit) => {
    const { data } = await unit.docs.require<Session>('checkout.session', id, { lock: true });
    if (data.status !== 'open')
      throw invalidParam(
        `Only Checkout Sessions with a status of \`open\` can be expired. This session has status \`${data.status}\`.`,
      );
    return expireLocked(unit, data);
  });
}

/** Reads a session, expiring it first if its time ran out while nobody looked. */
export async function currentSession(ctx: SimContext, id: string): Promise<Stored<Session> | null> {
  const stored = await ctx.docs.get<Session>('checkout.session', id);
  if (stored === null || stored.data.status !== 'open' || stored.data.expires_at > nowSeconds())
    return stored;
  const outcome = await mutate(ctx, AUTOMATIC, async (unit) => {
    const { data } = await unit.docs.require<Session>('checkout.session', id, { lock: true });
    return data.status === 'open' ? expireLocked(unit, data) : data;
  });
  return { data: outcome.value, extra: stored.extra };
}

function customerDetails(customer: Stripe.Customer): Stripe.Checkout.Session.CustomerDetails {
  return {
    address: customer.address ?? null,
    business_name: null,
    email: customer.email,
    individual_name: null,
    name: customer.name ?? null,
    phone: null,
    tax_exempt: 'none',
    tax_ids: [],
  };
}

/**
 * The Pay button. Paying twice (two tabs, a double click) pays once: the session row is locked.
 * `email` is what the person typed when the session named neither customer nor customer_email;
 * `method` how they paid: a bank debit is offered in payment mode only (checkout-payment.ts).
 */
export function payCheckout(
  ctx: SimContext,
  id: string,
  email?: string,
  method: PaymentMethodType = 'card',
): Promise<Outcome<PayResult>> {
  return mutate(ctx, AUTOMATIC, async (unit): Promise<PayResult> => {
    const stored = await unit.docs.require<Session>('checkout.session', id, { lock: true });
    if (stored.data.status !== 'open') return { paid: false, session: stored.data };
    const at = nowSeconds();
    if (stored.data.expires_at <= at)
      return { paid: false, session: await expireLocked(unit, stored.data) };
    const extra = stored.extra as unknown as SessionExtra;
    if (stored.data.mode === 'payment')
      return payOnce(unit, stored.data, extra, { at, email, method });
    if (method !== 'card')
      throw invalidParam(
        `A subscription checkout is paid by card here; ${method} is offered in payment mode only.`,
        'payment_method_type',
      );
    return pay(unit, { session: stored.data, extra }, at, email);
  });
}

interface OpenSession {
  session: Session;
  extra: SessionExtra;
}

async function pay(
  unit: Unit,
  { session: open, extra }: OpenSession,
  at: number,
  email: string | undefined,
): Promise<PayResult> {
  const [line] = extra.line_items;
  if (line === undefined) throw new Error(`checkout session ${open.id} has no line item`);
  const price = (await unit.docs.require<Stripe.Price>('price', line.price)).data;
  const payer = await payingCustomer(unit.docs, { session: open, extra }, email);
  const { customer } = payer;
  // The card the page takes stays attached to the customer, as Checkout leaves it at Stripe.
  const card = collectsCard(open) ? await attachCard(unit.docs, customer, '4242') : null;
  const data = extra.subscription_data;
  const trialEnd = trialEndOf(
    { days: data.trial_period_days ?? null, end: data.trial_end ?? null },
    at,
  );
  const { subscription, invoice } = await startSubscription(unit.docs, {
    subscription: buildSubscription({
      customer: customer.id,
      price,
      quantity: line.quantity,
      metadata: data.metadata,
      description: data.description,
      start: at,
      periodEnd: trialEnd ?? periodEndOf(price, at),
      trialEnd,
      missingPaymentMethod: data.missing_payment_method ?? undefined,
      paymentMethod: card?.id ?? null,
      automaticTax: open.automatic_tax.enabled,
    }),
    customer,
    number: payer.number,
    at,
    paid: true,
    discount: redeemedAt(open),
  });
  const session = completed(open, { customer, subscription, invoice });
  await unit.docs.save('checkout.session', session);
  const changed = payer.before === null ? undefined : previousAttributes(payer.before, customer);
  if (changed !== undefined && 'address' in changed)
    await unit.emit('customer.updated', customer, { address: changed.address });
  await unit.emit('checkout.session.completed', session);
  await unit.emit('customer.subscription.created', subscription);
  await unit.emit('invoice.paid', invoice);
  await announceTrialEndingSoon(unit, subscription, at);
  return { paid: true, session, subscription, invoice };
}

/**
 * Who pays, stored with its next invoice number taken: the session's customer (locked), or a new
 * one with the session's or the typed e-mail. `before` is the existing customer as it was.
 */
async function payingCustomer(
  docs: Documents,
  { session, extra }: OpenSession,
  email: string | undefined,
): Promise<{ customer: Stripe.Customer; number: string; before: Stripe.Customer | null }> {
  const before =
    session.customer === null
      ? null
      : (
          await docs.require<Stripe.Customer>('customer', session.customer as string, {
            lock: true,
          })
        ).data;
  const taken = takeInvoiceNumber(
    before ?? buildCustomer({ email: session.customer_email ?? email }),
  );
  // Automatic tax needs the billing address Checkout collects: saved on a new customer, and on
  // an existing one when customer_update[address]=auto lets Checkout write it.
  const customer: Stripe.Customer =
    session.automatic_tax.enabled &&
    taken.customer.address == null &&
    (before === null || extra.customer_update?.address === 'auto')
      ? { ...taken.customer, address: SIMULATED_ADDRESS }
      : taken.customer;
  await docs.save('customer', customer);
  return { customer, number: taken.number, before };
}

/** payment_method_collection=if_required takes no card when nothing is due today (a trial, or a code taking it all). */
const collectsCard = (session: Session): boolean =>
  !(session.payment_method_collection === 'if_required' && session.amount_total === 0);

/** The session's code or coupon, as the discount the subscription gets. */
function redeemedAt(session: Session): Start['discount'] {
  const [discount] = session.discounts ?? [];
  if (discount === undefined) return null;
  return {
    coupon: String(discount.coupon),
    promotionCode: discount.promotion_code === null ? null : String(discount.promotion_code),
    checkoutSession: session.id,
  };
}

function completed(
  session: Session,
  made: { customer: Stripe.Customer; subscription: Stripe.Subscription; invoice: Stripe.Invoice },
): Session {
  return {
    ...session,
    status: 'complete',
    payment_status: session.amount_total === 0 ? 'no_payment_required' : 'paid',
    automatic_tax: session.automatic_tax.enabled
      ? { ...session.automatic_tax, status: 'complete' }
      : session.automatic_tax,
    customer: made.customer.id,
    customer_details: customerDetails(made.customer),
    subscription: made.subscription.id,
    invoice: made.invoice.id,
    url: null,
  };
}
