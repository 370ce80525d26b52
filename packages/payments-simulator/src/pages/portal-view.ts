// The billing portal's page (what pages/portal-page.ts serves): the customer's live subscriptions,
// each at its price with the discount applied and the coupon named, its next invoice and a change
// scheduled for its period's end, with the buttons the session's configuration offers (switch
// between the configured prices, now or from the period's end; keep the current plan instead of a
// scheduled change; cancel at period end, renew again, cancel now), the card with a form to
// replace it and recent invoices (laid out in lines by invoice-lines.ts) when it offers them, and the link
// back to the merchant's return URL.
import type Stripe from 'stripe';
import { TEST_CARDS } from '../card-update.ts';
import type { NextCharge } from '../next-charge.ts';
import { planTitle, unitOf } from '../objects/catalog.ts';
import type { AppliedDiscount } from '../objects/charge.ts';
import { itemOf, scheduledEnd } from '../objects/subscriptions.ts';
import type { PortalRules } from '../portal-rules.ts';
import type { PendingChange } from '../schedule-lifecycle.ts';
import { discountName, perPeriod, planAt } from './charge-words.ts';
import { invoiceLines } from './invoice-lines.ts';
import { dateOf, html, money, type Html } from './layout.ts';

/**
 * A price the portal offers to switch to, with what a period of it would come to, and whether the
 * switch waits for the period's end.
 */
export interface Offer {
  price: Stripe.Price;
  waits: boolean;
}

export interface PortalSubscription {
  subscription: Stripe.Subscription;
  next: NextCharge;
  offers: Offer[];
  pending: PendingChange | null;
}

export interface PortalView {
  session: Stripe.BillingPortal.Session;
  rules: PortalRules;
  customer: Stripe.Customer;
  subscriptions: PortalSubscription[];
  invoices: Stripe.Invoice[];
  /** The discounts the invoices name, by id. */
  discounts: Map<string, AppliedDiscount>;
  card: string;
  notice: string | null;
}

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

function offerButton(session: string, s: PortalSubscription, offer: Offer): Html {
  const { subscription, next } = s;
  const { quantity = 1, current_period_end: end } = itemOf(subscription);
  const from = offer.waits ? ` from ${dateOf(end)}` : '';
  const label = `Switch to ${planAt(offer.price, quantity, next.adjustments)}${from}`;
  return button(session, {
    action: 'switch',
    label,
    fields: { subscription: subscription.id, price: offer.price.id },
  });
}

/** The buttons for a subscription, as the configuration offers them. */
function buttons(view: PortalView, portalSubscription: PortalSubscription): Html {
  const { subscription, offers, pending } = portalSubscription;
  const id = view.session.id;
  const sub = { subscription: subscription.id };
  const { cancel } = view.rules;
  const cancelNow = cancel.includes('immediately')
    ? button(id, { action: 'cancel-now', label: 'Cancel now', fields: sub, style: 'danger' })
    : '';
  if (scheduledEnd(subscription) !== null)
    return html`${button(id, { action: 'resume-at-period-end', label: 'Renew subscription', fields: sub })}${cancelNow}`;
  const changes =
    pending !== null
      ? button(id, { action: 'keep-plan', label: 'Keep current plan', fields: sub })
      : html`${offers.map((offer) => offerButton(id, portalSubscription, offer))}`;
  const cancelAtEnd = cancel.includes('at_period_end')
    ? button(id, { action: 'cancel-at-period-end', label: 'Cancel at period end', fields: sub })
    : '';
  return html`${changes}
        ${cancelAtEnd}${cancelNow}`;
}

function subscriptionCard(view: PortalView, portalSubscription: PortalSubscription): Html {
  const { subscription, next, pending } = portalSubscription;
  const { price, quantity = 1, current_period_end: end } = itemOf(subscription);
  const cancels = scheduledEnd(subscription);
  const renewal =
    cancels !== null
      ? html`<span class="badge canceled">Cancels ${dateOf(cancels)}</span>`
      : subscription.status === 'trialing'
        ? html`<span class="muted small">Trial ends ${dateOf(subscription.trial_end)}</span>`
        : html`<span class="muted small">Renews ${dateOf(end)}</span>`;
  const upcoming =
    next.at === null
      ? ''
      : html`<p class="next">Next invoice ${money(next.invoice.total, price.currency)} on ${dateOf(next.at)}</p>`;
  const scheduled =
    pending === null
      ? ''
      : html`<p class="pending">Changes to ${planAt(pending.price, pending.quantity, next.adjustments)} on ${dateOf(pending.at)}</p>`;
  return html`<div class="card subscription" data-subscription="${subscription.id}" style="margin-bottom:14px">
    <h2 style="margin-top:0"><span class="plan">${planTitle(price)}</span> <span class="badge ${subscription.status}">${subscription.status.replace('_', ' ')}</span></h2>
    <p class="monthly">${perPeriod(next.period, price)} · ${renewal}</p>
    ${next.adjustments.discount === null ? '' : html`<p class="discount">${discountName(next.adjustments.discount)}</p>`}
    ${quantity === 1 ? '' : html`<p class="quantity">Quantity ${quantity} · ${money((price.unit_amount ?? 0) * quantity, price.currency)} per ${unitOf(price)} in total</p>`}
    ${upcoming}${scheduled}
    <p>${buttons(view, portalSubscription)}</p></div>`;
}

function cardSection(view: PortalView): Html {
  const cards = Object.entries(TEST_CARDS).map(
    ([last4, card]) => html`<option value="${last4}">${card.label} •••• ${last4}</option>`,
  );
  return html`<h2>Payment method</h2>
    <div class="card"><p id="card">${view.card} <span class="muted small">(simulated)</span></p>
      <form method="post" action="/p/session/${view.session.id}/update-card"><label class="small muted">New card</label>
        <select name="card">${cards}</select> <button type="submit">Update card</button></form></div>`;
}

function invoiceSection(view: PortalView): Html {
  return html`<h2>Invoice history</h2>
    <table><tr><th>Date</th><th>Amount</th><th>Status</th><th>Reason</th></tr>
    ${view.invoices.map((i) => html`<tr><td class="small">${dateOf(i.created)}</td><td>${money(i.total, i.currency)}</td><td><span class="badge ${i.status ?? ''}">${i.status}</span></td><td class="small muted">${(i.billing_reason ?? '').replaceAll('_', ' ')}${invoiceLines(i, view.discounts)}</td></tr>`)}
    ${view.invoices.length === 0 ? html`<tr><td colspan="4" class="muted">None yet.</td></tr>` : ''}</table>`;
}

export function renderPortal(view: PortalView): Html {
  const { session, customer } = view;
  const back = session.return_url
    ? html`<p><a id="return" href="${session.return_url}">← Return to ${new URL(session.return_url).host}</a></p>`
    : '';
  return html`<main style="max-width:720px">
    ${back}
    <p class="muted small"><span class="badge test">TEST MODE</span> Billing portal · Payments Simulator</p>
    <h1>${customer.email ?? customer.id}</h1>
    ${view.notice ? html`<div class="notice">${view.notice}</div>` : ''}
    <h2>Current subscription${view.subscriptions.length === 1 ? '' : 's'}</h2>
    ${view.subscriptions.map((s) => subscriptionCard(view, s))}
    ${view.subscriptions.length === 0 ? html`<p class="muted">No active subscription. Start one from the merchant's site.</p>` : ''}
    ${view.rules.paymentMethodUpdate ? cardSection(view) : ''}
    ${view.rules.invoiceHistory ? invoiceSection(view) : ''}
  </main>`;
}
