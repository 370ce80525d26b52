// The open checkout session's page (what pages/checkout-page.ts serves): what is bought and for
// how much, the offers the session was created with (a trial: "14 days free, then $12.00 per
// month with SAVE20 (20% off forever)"; a promotion code field; the discount and the tax lines of
// the first invoice after any trial), the card unless none is needed today, and the button:
// "Start trial" or "Pay ... and subscribe".
import type Stripe from 'stripe';
import { unitOf } from '../objects/catalog.ts';
import type { Adjustments, Charge } from '../objects/charge.ts';
import type { SessionExtra } from '../objects/checkout.ts';
import { SIMULATED_TAX } from '../objects/offers.ts';
import { afterDiscount, discountName } from './charge-words.ts';
import { dateOf, html, money, type Html } from './layout.ts';

const DAY = 86_400;

export interface CheckoutView {
  session: Stripe.Checkout.Session;
  extra: SessionExtra;
  price: Stripe.Price;
  product: Stripe.Product | null;
  email: string | null;
  /** The session's discount and tax, and what its first invoice after any trial charges. */
  adjustments: Adjustments;
  first: Charge;
  notice: string | null;
  now: number;
}

/** Days of trial the session offers; null without one. */
function trialDaysOf({ extra, now }: CheckoutView): number | null {
  const { trial_period_days: days, trial_end: end } = extra.subscription_data;
  if (days != null) return days;
  return end == null ? null : Math.max(1, Math.round((end - now) / DAY));
}

/** "then $12.00 per month with SAVE20 (20% off forever)": the price once the trial ends, per its interval. */
function afterTrial({ first, adjustments, price }: CheckoutView): string {
  const discount = adjustments.discount;
  const each = `${money(afterDiscount(first.lines[0]!), price.currency)} per ${unitOf(price)}`;
  return discount === null ? each : `${each} with ${discountName(discount)}`;
}

/**
 * The first invoice's lines (the subtotal, the discount, the tax) and what is due: with a trial
 * they are what is charged when it ends, and nothing is due today.
 */
function offerLines(view: CheckoutView, trial: boolean): Html {
  const { session, first, adjustments } = view;
  const currency = session.currency;
  const adjusted = adjustments.discount !== null || adjustments.taxPercent !== null;
  const subtotal = adjusted
    ? html`<p class="subtotal">Subtotal <span class="muted">${money(first.subtotal, currency)}</span></p>`
    : '';
  const discount =
    adjustments.discount === null
      ? ''
      : html`<p class="discount">
          ${discountName(adjustments.discount)}
          <span class="muted">−${money(first.discount, currency)}</span>
        </p>`;
  const tax =
    adjustments.taxPercent === null
      ? ''
      : html`<p class="tax">
          ${SIMULATED_TAX.name} (simulated, ${SIMULATED_TAX.percent}%)
          <span class="muted">${money(first.tax, currency)}</span>
        </p>`;
  const afterTrialTotal = trial
    ? html`<p class="after-trial">Total after trial ${money(first.total, currency)}</p>`
    : '';
  return html`${subtotal}${discount}${tax}${afterTrialTotal}
    <p class="total">
      <strong>Total due today ${money(session.amount_total, currency)}</strong>
    </p>`;
}

function promotionCodeForm(view: CheckoutView): Html | string {
  const { session, adjustments } = view;
  if (session.allow_promotion_codes !== true) return '';
  const action = `/checkout/${session.id}/promotion-code`;
  // The notice says a code was applied; the field says which, with a way to remove it.
  if (adjustments.discount !== null)
    return html`<form method="post" action="${action}" style="margin-bottom:14px">
      <input type="hidden" name="remove" value="1" />
      <span class="small">Promotion code <code>${adjustments.discount.promotionCode?.code ?? ''}</code></span>
      <button class="link" type="submit">Remove</button>
    </form>`;
  return html`<form method="post" action="${action}">
    <label class="small muted" for="promotion-code">Promotion code</label>
    <input id="promotion-code" type="text" name="code" autocomplete="off" />
    <button type="submit">Apply</button>
  </form>`;
}

export function renderCheckout(view: CheckoutView): Html {
  const { session, price, product, email, extra } = view;
  const line = extra.line_items[0]!;
  const days = trialDaysOf(view);
  const perPeriod = money(view.first.subtotal, price.currency);
  const unit = unitOf(price);
  const headline =
    days === null
      ? html`<div class="price">${perPeriod}<span class="muted small" style="font-weight:400"> per ${unit}</span></div>`
      : html`<div class="price">${days} days free</div>
          <p class="trial">${days} days free, then ${afterTrial(view)}</p>`;
  const needsCard =
    session.payment_method_collection !== 'if_required' || session.amount_total !== 0;
  const card = needsCard
    ? html`<label class="small muted">Card</label>
        <div class="field">
          4242 4242 4242 4242 · 12/34 · 123
          <span class="muted small">(simulated, no money moves)</span>
        </div>`
    : html`<p class="no-card small">No card is needed for the trial.</p>`;
  const emailField: Html = email
    ? html`<div class="field">${email}</div>`
    : html`<input type="email" name="email" placeholder="you@example.com" autocomplete="email" />`;
  const button =
    days !== null
      ? 'Start trial'
      : `Pay ${money(session.amount_total, session.currency)} and subscribe`;
  return html`<main class="checkout">
    <section>
      <p class="muted small"><span class="badge test">TEST MODE</span> Payments Simulator</p>
      <p class="muted">Subscribe to ${product?.name ?? price.id}</p>
      ${headline}
      ${line.quantity > 1 ? html`<p class="quantity">${line.quantity} × ${product?.name ?? price.id} · ${perPeriod} per ${unit} in total</p>` : ''}
      <p class="muted small">${product?.description ?? ''}</p>
      ${offerLines(view, days !== null)}
    </section>
    <section class="card">
      ${view.notice ? html`<div class="notice">${view.notice}</div>` : ''}
      ${promotionCodeForm(view)}
      <form method="post" action="/checkout/${session.id}/pay">
        <label class="small muted">Email</label>${emailField} ${card}
        ${session.automatic_tax.enabled ? html`<p class="small muted">Billing address: simulated, in the US (taxed at ${SIMULATED_TAX.percent}%).</p>` : ''}
        <button class="primary" type="submit">${button}</button>
      </form>
      ${sessionFooter(session)}
    </section>
  </main>`;
}

/** A checkout page's way back and its session's id and expiry, under the form. */
export const sessionFooter = (session: Stripe.Checkout.Session): Html =>
  html`<form method="post" action="/checkout/${session.id}/cancel" style="margin-top:14px;text-align:center">
      <button class="link" type="submit">Cancel and return</button>
    </form>
    <p class="muted small" style="margin-top:18px">
      Session <code>${session.id}</code>, open until ${dateOf(session.expires_at)}.
    </p>`;
