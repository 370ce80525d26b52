// The billing portal's page (what pages/portal-page.ts serves): the customer's live subscriptions
// with the buttons Stripe's portal offers (switch between the configured plans, cancel at period
// end, renew again, cancel now), the card with a form to replace it, recent invoices, and the link
// back to the merchant's return URL.
import type Stripe from 'stripe';
import { TEST_CARDS } from '../card-update.ts';
import { tierTitle } from '../objects/catalog.ts';
import { itemOf, scheduledEnd } from '../objects/subscriptions.ts';
import { dateOf, html, money, type Html } from './layout.ts';

export interface PortalView {
  session: Stripe.BillingPortal.Session;
  customer: Stripe.Customer;
  subscriptions: Stripe.Subscription[];
  prices: Stripe.Price[];
  invoices: Stripe.Invoice[];
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

function subscriptionCard(view: PortalView, subscription: Stripe.Subscription): Html {
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
  return html`<div class="card subscription" data-subscription="${subscription.id}" style="margin-bottom:14px">
    <h2 style="margin-top:0"><span class="plan">${planName(price)}</span> <span class="badge ${subscription.status}">${subscription.status.replace('_', ' ')}</span></h2>
    <p><strong>${money(price.unit_amount, price.currency)}</strong> per month · ${renewal}</p>
    ${quantity === 1 ? '' : html`<p class="quantity">Quantity ${quantity} · ${money((price.unit_amount ?? 0) * quantity, price.currency)} per month in total</p>`}
    <p>${buttons}</p></div>`;
}

/** An invoice's lines, each with its amount, when it bills prorations (a plan or quantity change). */
function prorationLines(invoice: Stripe.Invoice): Html | '' {
  const lines = invoice.lines.data;
  if (!lines.some((line) => line.parent?.subscription_item_details?.proration)) return '';
  return html`<ul class="lines">${lines.map((line) => html`<li>${line.description ?? ''}: ${money(line.amount, line.currency)}</li>`)}</ul>`;
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
    ${view.invoices.map((i) => html`<tr><td class="small">${dateOf(i.created)}</td><td>${money(i.total, i.currency)}</td><td><span class="badge ${i.status ?? ''}">${i.status}</span></td><td class="small muted">${(i.billing_reason ?? '').replaceAll('_', ' ')}${prorationLines(i)}</td></tr>`)}
    ${view.invoices.length === 0 ? html`<tr><td colspan="4" class="muted">None yet.</td></tr>` : ''}</table>
  </main>`;
}
