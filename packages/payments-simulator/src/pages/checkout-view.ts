// The open checkout session's page (what pages/checkout-page.ts serves): what is bought and for
// how much, the offers the session was created with (a trial: "14 days free, then $15.00 per
// month"; a promotion code field; the discount and the tax lines), the card unless none is needed
// today, and the button: "Start trial" or "Pay ... and subscribe".
import type Stripe from 'stripe';
import type { SessionExtra } from '../objects/checkout.ts';
import { SIMULATED_TAX } from '../objects/offers.ts';
import { dateOf, html, money, type Html } from './layout.ts';

const DAY = 86_400;

export interface CheckoutView {
  session: Stripe.Checkout.Session;
  extra: SessionExtra;
  price: Stripe.Price;
  product: Stripe.Product | null;
  email: string | null;
  /** The promotion code applied and its coupon, when one is. */
  code: Stripe.PromotionCode | null;
  coupon: Stripe.Coupon | null;
  notice: string | null;
  now: number;
}

/** Days of trial the session offers; null without one. */
function trialDaysOf({ extra, now }: CheckoutView): number | null {
  const { trial_period_days: days, trial_end: end } = extra.subscription_data;
  if (days != null) return days;
  return end == null ? null : Math.max(1, Math.round((end - now) / DAY));
}

function offerLines(view: CheckoutView): Html {
  const { session, code, coupon } = view;
  const currency = session.currency;
  const details = session.total_details;
  const discount =
    session.discounts !== null && session.discounts.length > 0
      ? html`<p class="discount">
          ${code?.code ?? coupon?.name ?? 'Discount'}${coupon?.percent_off ? ` (${coupon.percent_off}% off)` : ''}
          <span class="muted">−${money(details?.amount_discount ?? 0, currency)}</span>
        </p>`
      : '';
  const tax = session.automatic_tax.enabled
    ? html`<p class="tax">
        ${SIMULATED_TAX.name} (simulated, ${SIMULATED_TAX.percent}%)
        <span class="muted">${money(details?.amount_tax ?? 0, currency)}</span>
      </p>`
    : '';
  return html`${discount}${tax}
    <p class="total">
      <strong>Total due today ${money(session.amount_total, currency)}</strong>
    </p>`;
}

function promotionCodeForm(view: CheckoutView): Html | string {
  const { session, code } = view;
  if (session.allow_promotion_codes !== true) return '';
  const action = `/checkout/${session.id}/promotion-code`;
  if (session.discounts !== null && session.discounts.length > 0)
    return html`<form method="post" action="${action}" class="inline">
      <input type="hidden" name="remove" value="1" />
      <span class="small">Code <code>${code?.code ?? ''}</code> applied.</span>
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
  const perMonth = money((price.unit_amount ?? 0) * line.quantity, price.currency);
  const headline =
    days === null
      ? html`<div class="price">${perMonth}<span class="muted small" style="font-weight:400"> per month</span></div>`
      : html`<div class="price">${days} days free</div>
          <p class="trial">${days} days free, then ${perMonth} per month</p>`;
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
      ${line.quantity > 1 ? html`<p class="quantity">${line.quantity} × ${product?.name ?? price.id} · ${perMonth} per month in total</p>` : ''}
      <p class="muted small">${product?.description ?? ''}</p>
      ${offerLines(view)}
    </section>
    <section class="card">
      ${view.notice ? html`<div class="notice">${view.notice}</div>` : ''}
      ${promotionCodeForm(view)}
      <form method="post" action="/checkout/${session.id}/pay">
        <label class="small muted">Email</label>${emailField} ${card}
        ${session.automatic_tax.enabled ? html`<p class="small muted">Billing address: simulated, in the US (taxed at ${SIMULATED_TAX.percent}%).</p>` : ''}
        <button class="primary" type="submit">${button}</button>
      </form>
      <form method="post" action="/checkout/${session.id}/cancel" style="margin-top:14px;text-align:center">
        <button class="link" type="submit">Cancel and return</button>
      </form>
      <p class="muted small" style="margin-top:18px">
        Session <code>${session.id}</code>, open until ${dateOf(session.expires_at)}.
      </p>
    </section>
  </main>`;
}
