// The billing portal's page (what pages/portal-page.ts serves): the customer's live subscriptions,
// each at its price with the discount applied and the coupon named, and its next invoice, with the
// buttons Stripe's portal offers (switch between the configured plans, cancel at period end, renew
// again, cancel now), the card with a form to replace it, recent invoices with their discount and
// tax, and the link back to the merchant's return URL.
import type Stripe from 'stripe';
import { TEST_CARDS } from '../card-update.ts';
import type { NextCharge } from '../next-charge.ts';
import { tierTitle } from '../objects/catalog.ts';
import type { AppliedDiscount } from '../objects/charge.ts';
import { SIMULATED_TAX } from '../objects/offers.ts';
import { itemOf, scheduledEnd } from '../objects/subscriptions.ts';
import { discountName, perMonth } from './charge-words.ts';
import { dateOf, html, money, type Html } from './layout.ts';

export interface PortalView {
  session: Stripe.BillingPortal.Session;
  customer: Stripe.Customer;
  subscriptions: { subscription: Stripe.Subscription; next: NextCharge }[];
  prices: Stripe.Price[];
  invoices: Stripe.Invoice[];
  /** The discounts the invoices name, by id. */
  discounts: Map<string, AppliedDiscount>;
  card: string;
  notice: string | null;
}

const planName = (price: Stripe.Price): string => tierTitle(price.lookup_key ?? price.id);

interface Button {
  /** The action posted to, /p/session/:id/<action>. */
  action: string;
  label: string;
  /** Hidden form fields. */
  fields: Record<string, string>;
  style?: string;
}

function button(session: string, { action, label, fields, style = '' }: Button): Html {
  const hidden = Object.entries(fields).map(
    ([key, value]) => html`<input type="hidden" name="${key}" value="${value}">`,
  );
  return html`<form class="inline" method="post" action="/p/session/${session}/${action}">${hidden}<button type="submit" class="${style}">${label}</button></form> `;
}

function subscriptionCard(
  view: PortalView,
  { subscription, next }: { subscription: Stripe.Subscription; next: NextCharge },
): Html {
  const { price, quantity = 1, current_period_end: end } = itemOf(subscription);
  const id = view.session.id;
  const sub = { subscription: subscription.id };
  const cancels = scheduledEnd(subscription);
  const renewal =
    cancels !== null
      ? html`<span class="badge canceled">Cancels ${dateOf(cancels)}</span>`
      : subscription.status === 'trialing'
        ? html`<span class="muted small">Trial ends ${dateOf(subscription.trial_end)}</span>`
        : html`<span class="muted small">Renews ${dateOf(end)}</span>`;
  const buttons =
    cancels !== null
      ? html`${button(id, { action: 'resume-at-period-end', label: 'Renew subscription', fields: sub })}${button(id, { action: 'cancel-now', label: 'Cancel now', fields: sub, style: 'danger' })}`
      : html`${view.prices.filter((p) => p.id !== price.id).map((p) => button(id, { action: 'switch', label: `Switch to ${planName(p)} (${money(p.unit_amount, p.currency)}/month)`, fields: { ...sub, price: p.id } }))}
        ${button(id, { action: 'cancel-at-period-end', label: 'Cancel at period end', fields: sub })}${button(id, { action: 'cancel-now', label: 'Cancel now', fields: sub, style: 'danger' })}`;
  const upcoming =
    next.at === null
      ? ''
      : html`<p class="next">Next invoice ${money(next.invoice.total, price.currency)} on ${dateOf(next.at)}</p>`;
  return html`<div class="card subscription" data-subscription="${subscription.id}" style="margin-bottom:14px">
    <h2 style="margin-top:0"><span class="plan">${planName(price)}</span> <span class="badge ${subscription.status}">${subscription.status.replace('_', ' ')}</span></h2>
    <p class="monthly">${perMonth(next.period, price.currency)} · ${renewal}</p>
    ${next.adjustments.discount === null ? '' : html`<p class="discount">${discountName(next.adjustments.discount)}</p>`}
    ${quantity === 1 ? '' : html`<p class="quantity">Quantity ${quantity} · ${money((price.unit_amount ?? 0) * quantity, price.currency)} per month in total</p>`}
    ${upcoming}
    <p>${buttons}</p></div>`;
}

/**
 * An invoice's lines, each with its amount, when they say more than its reason: prorations (a plan
 * or quantity change), or a trial's period at nothing.
 */
function itemLines(invoice: Stripe.Invoice): Html | '' {
  const lines = invoice.lines.data;
  const prorated = lines.some((line) => line.parent?.subscription_item_details?.proration);
  if (!prorated && invoice.subtotal !== 0) return '';
  return html`<ul class="lines">${lines.map((line) => html`<li>${line.description ?? ''}: ${money(line.amount, line.currency)}</li>`)}</ul>`;
}

/** "Subtotal $15.00 · SAVE20 (20% off forever) −$3.00 · Sales tax $1.20", for an invoice with either. */
function adjustmentLines(invoice: Stripe.Invoice, discounts: PortalView['discounts']): Html | '' {
  const currency = invoice.currency;
  if (invoice.subtotal === 0) return '';
  const discount = (invoice.total_discount_amounts ?? []).map((each) => {
    const applied = discounts.get(String(each.discount));
    return ` · ${applied === undefined ? 'Discount' : discountName(applied)} −${money(each.amount, currency)}`;
  });
  const tax = (invoice.total_taxes ?? []).map(
    (each) => ` · ${SIMULATED_TAX.name} ${money(each.amount, currency)}`,
  );
  if (discount.length + tax.length === 0) return '';
  return html`<p class="adjustments">Subtotal ${money(invoice.subtotal, currency)}${discount}${tax}</p>`;
}

export function renderPortal(view: PortalView): Html {
  const { session, customer } = view;
  const back = session.return_url
    ? html`<p><a id="return" href="${session.return_url}">← Return to ${new URL(session.return_url).host}</a></p>`
    : '';
  const cards = Object.entries(TEST_CARDS).map(
    ([last4, card]) => html`<option value="${last4}">${card.label} •••• ${last4}</option>`,
  );
  return html`<main style="max-width:720px">
    ${back}
    <p class="muted small"><span class="badge test">TEST MODE</span> Billing portal · Payments Simulator</p>
    <h1>${customer.email ?? customer.id}</h1>
    ${view.notice ? html`<div class="notice">${view.notice}</div>` : ''}
    <h2>Current subscription${view.subscriptions.length === 1 ? '' : 's'}</h2>
    ${view.subscriptions.map((s) => subscriptionCard(view, s))}
    ${view.subscriptions.length === 0 ? html`<p class="muted">No active subscription. Start one from the merchant's site.</p>` : ''}
    <h2>Payment method</h2>
    <div class="card"><p id="card">${view.card} <span class="muted small">(simulated)</span></p>
      <form method="post" action="/p/session/${session.id}/update-card"><label class="small muted">New card</label>
        <select name="card">${cards}</select> <button type="submit">Update card</button></form></div>
    <h2>Invoice history</h2>
    <table><tr><th>Date</th><th>Amount</th><th>Status</th><th>Reason</th></tr>
    ${view.invoices.map((i) => html`<tr><td class="small">${dateOf(i.created)}</td><td>${money(i.total, i.currency)}</td><td><span class="badge ${i.status ?? ''}">${i.status}</span></td><td class="small muted">${(i.billing_reason ?? '').replaceAll('_', ' ')}${adjustmentLines(i, view.discounts)}${itemLines(i)}</td></tr>`)}
    ${view.invoices.length === 0 ? html`<tr><td colspan="4" class="muted">None yet.</td></tr>` : ''}</table>
  </main>`;
}
