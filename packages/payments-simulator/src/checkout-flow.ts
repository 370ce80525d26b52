// What happens to a checkout session after it is created: paid on the hosted page (customer,
// subscription, paid invoice, then checkout.session.completed, customer.subscription.created and
// invoice.paid, in that order), or expired (by the API, or lazily once expires_at has passed).
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext, type Unit } from './context.ts';
import { invalidParam } from './errors.ts';
import { AUTOMATIC, type Trigger } from './events.ts';
import type { SessionExtra } from './objects/checkout.ts';
import { buildCustomer, takeInvoiceNumber } from './objects/customers.ts';
import { buildInvoice } from './objects/invoices.ts';
import { buildSubscription } from './objects/subscriptions.ts';
import type { Stored } from './store.ts';
import { addMonth, nowSeconds } from './time.ts';

type Session = Stripe.Checkout.Session;

export type PayResult =
  | { paid: true; session: Session; subscription: Stripe.Subscription; invoice: Stripe.Invoice }
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
    address: null,
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
 * `email` is what the person typed when the session named neither customer nor customer_email.
 */
export function payCheckout(
  ctx: SimContext,
  id: string,
  email?: string,
): Promise<Outcome<PayResult>> {
  return mutate(ctx, AUTOMATIC, async (unit): Promise<PayResult> => {
    const { docs, emit } = unit;
    const stored = await docs.require<Session>('checkout.session', id, { lock: true });
    if (stored.data.status !== 'open') return { paid: false, session: stored.data };
    const at = nowSeconds();
    if (stored.data.expires_at <= at)
      return { paid: false, session: await expireLocked(unit, stored.data) };

    const {
      line_items: [line],
      subscription_data,
    } = stored.extra as unknown as SessionExtra;
    if (line === undefined) throw new Error(`checkout session ${id} has no line item`);
    const price = (await docs.require<Stripe.Price>('price', line.price)).data;
    const existing =
      stored.data.customer === null
        ? null
        : await docs.require<Stripe.Customer>('customer', stored.data.customer as string, {
            lock: true,
          });
    const taken = takeInvoiceNumber(
      existing?.data ?? buildCustomer({ email: stored.data.customer_email ?? email }),
    );
    await docs.save('customer', taken.customer);

    const created = buildSubscription({
      customer: taken.customer.id,
      price,
      quantity: line.quantity,
      metadata: subscription_data.metadata,
      description: subscription_data.description,
      start: at,
      periodEnd: addMonth(at),
    });
    const invoice = buildInvoice({
      subscription: created,
      customer: taken.customer,
      reason: 'subscription_create',
      paid: true,
      at,
      number: taken.number,
    });
    const subscription: Stripe.Subscription = { ...created, latest_invoice: invoice.id };
    const session: Session = {
      ...stored.data,
      status: 'complete',
      payment_status: 'paid',
      customer: taken.customer.id,
      customer_details: customerDetails(taken.customer),
      subscription: subscription.id,
      invoice: invoice.id,
      url: null,
    };
    await docs.save('subscription', subscription);
    await docs.save('invoice', invoice);
    await docs.save('checkout.session', session);
    await emit('checkout.session.completed', session);
    await emit('customer.subscription.created', subscription);
    await emit('invoice.paid', invoice);
    return { paid: true, session, subscription, invoice };
  });
}
