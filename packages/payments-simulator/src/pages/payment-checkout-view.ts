// The hosted page of a checkout in payment mode (a one-time price, such as a credit pack): what is
// bought and its price, once, and two ways to pay: a card (paid at once) or a US bank account
// debit, which completes the checkout unpaid and settles or fails days later (the dashboard's
// buttons decide which: payment-settlement.ts). Each is a button of the one form, naming its
// payment_method_type.
import type Stripe from 'stripe';
import { sessionFooter, type CheckoutView } from './checkout-view.ts';
import { html, money, type Html } from './layout.ts';

/** What a completed session in payment mode did, for its page opened again. */
export function paymentCompletedWords(session: Stripe.Checkout.Session): Html {
  const amount = money(session.amount_total, session.currency);
  const intent = html`<code>${String(session.payment_intent)}</code>`;
  if (session.payment_status === 'paid') return html`${amount} was paid (${intent}).`;
  return html`The bank debit of ${amount} (${intent}) is processing: the merchant hears when it settles or fails.`;
}

export function renderPaymentCheckout(view: CheckoutView): Html {
  const { session, price, product, email, extra } = view;
  const line = extra.line_items[0]!;
  const name = product?.name ?? price.id;
  const total = money(session.amount_total, session.currency);
  const emailField: Html = email
    ? html`<div class="field">${email}</div>`
    : html`<input type="email" name="email" placeholder="you@example.com" autocomplete="email" />`;
  return html`<main class="checkout">
    <section>
      <p class="muted small"><span class="badge test">TEST MODE</span> Payments Simulator</p>
      <p class="muted">Pay for ${name}</p>
      <div class="price">${total}</div>
      ${line.quantity > 1 ? html`<p class="quantity">${line.quantity} × ${name} at ${money(price.unit_amount, price.currency)}</p>` : ''}
      <p class="muted small">${product?.description ?? ''}</p>
      <p class="total"><strong>Total due today ${total}</strong></p>
    </section>
    <section class="card">
      ${view.notice ? html`<div class="notice">${view.notice}</div>` : ''}
      <form method="post" action="/checkout/${session.id}/pay">
        <label class="small muted">Email</label>${emailField}
        <label class="small muted">Card</label>
        <div class="field">
          4242 4242 4242 4242 · 12/34 · 123
          <span class="muted small">(simulated, no money moves)</span>
        </div>
        <button class="primary" type="submit" name="payment_method_type" value="card">Pay ${total}</button>
        <p class="small muted" style="margin-top:18px">Or from a US bank account (ACH Direct Debit, STRIPE TEST BANK ···· 6789): the checkout completes now and the payment settles, or fails, days later.</p>
        <button type="submit" name="payment_method_type" value="us_bank_account" style="width:100%">Pay ${total} by bank debit (settles later)</button>
      </form>
      ${sessionFooter(session)}
    </section>
  </main>`;
}
