// The hosted checkout page (checkout-view.ts): what is bought and for how much a period, with the
// session's offers (a trial, a promotion code field, tax), a Pay button and a way back; in payment
// mode, the price once and a card or a bank debit (payment-checkout-view.ts). A code typed
// in is applied to the session (checkout-promotion.ts) and the page shown again. Pay creates the
// subscription and its paid invoice, sends the webhooks (waiting briefly for them, so the
// merchant's success page already sees the upgrade) and 303s to success_url with
// {CHECKOUT_SESSION_ID} filled in. Cancel 303s to cancel_url; the session stays open, as on Stripe.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type Stripe from 'stripe';
import { currentSession, payCheckout } from '../checkout-flow.ts';
import { applyPromotionCode } from '../checkout-promotion.ts';
import { within, type SimContext } from '../context.ts';
import type { FormObject } from '../form.ts';
import { sessionOffer, type SessionExtra } from '../objects/checkout.ts';
import type { Stored } from '../store.ts';
import { nowSeconds } from '../time.ts';
import { chosenMethod, typedEmail } from './checkout-form.ts';
import { renderCheckout, type CheckoutView } from './checkout-view.ts';
import { paymentCompletedWords, renderPaymentCheckout } from './payment-checkout-view.ts';
import { header, html, money, refuseCrossSitePosts, sendPage, type Html } from './layout.ts';

const PAY_WAIT_MS = 5_000;
type Session = Stripe.Checkout.Session;

const successUrlOf = (session: Session): string | null =>
  session.success_url?.replaceAll('{CHECKOUT_SESSION_ID}', session.id) ?? null;

/** What a completed session did: the amount paid, or a trial started with nothing charged. */
function completedWords(session: Session): Html {
  if (session.mode === 'payment') return paymentCompletedWords(session);
  const subscription = html`subscription <code>${String(session.subscription)}</code>`;
  if (session.payment_status === 'no_payment_required')
    return html`Nothing was charged today: ${subscription} has started.`;
  return html`${money(session.amount_total, session.currency)} was paid: ${subscription} is active.`;
}

function statusPage(reply: FastifyReply, session: Session, status = 200): FastifyReply {
  const success = successUrlOf(session);
  const paid = session.status === 'complete';
  const body = html`<main><div class="card" style="max-width:520px;margin:60px auto">${header(paid ? 'This checkout is complete.' : 'This checkout session has expired.')}
    <p><span class="badge ${session.status ?? ''}">${session.status}</span> <code>${session.id}</code></p>
    <p>${paid ? completedWords(session) : 'It can no longer be paid. Start a new checkout from the merchant.'}</p>
    ${paid && success ? html`<p><a href="${success}">Return to the merchant</a></p>` : ''}
    ${!paid && session.cancel_url ? html`<p><a href="${session.cancel_url}">Return to the merchant</a></p>` : ''}
  </div></main>`;
  return sendPage(reply, status, { title: paid ? 'Payment complete' : 'Checkout expired', body });
}

function notFound(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, {
    title: 'Checkout not found',
    body: html`<main><div class="card" style="max-width:520px;margin:60px auto">${header('No such checkout session.')}<p>The link may be mistyped, or the session belongs to another simulator database.</p></div></main>`,
  });
}

/** The open session's page: what it sells, to whom, and what it will charge. */
async function checkoutView(
  ctx: SimContext,
  stored: Stored<Session>,
  notice: string | null,
): Promise<CheckoutView> {
  const session = stored.data;
  const offer = await sessionOffer(ctx.docs, stored);
  const { price } = offer.item;
  const product = (await ctx.docs.get<Stripe.Product>('product', String(price.product)))?.data;
  const customer =
    typeof session.customer === 'string'
      ? (await ctx.docs.get<Stripe.Customer>('customer', session.customer))?.data
      : undefined;
  return {
    session,
    extra: stored.extra as unknown as SessionExtra,
    price,
    product: product ?? null,
    email: customer?.email ?? session.customer_email,
    adjustments: offer.adjustments,
    first: offer.first,
    notice,
    now: nowSeconds(),
  };
}

/** The code field's form: applies the typed code or removes the applied one; null when empty. */
async function promotionCodeNotice(
  ctx: SimContext,
  sessionId: string,
  form: FormObject,
): Promise<string | null> {
  const typed = typeof form.code === 'string' ? form.code.trim() : '';
  const remove = form.remove !== undefined;
  if (!remove && typed === '') return null;
  const { value } = await applyPromotionCode(ctx, sessionId, remove ? null : typed);
  if (remove) return 'The promotion code was removed.';
  return value.applied ? `Code ${typed.toUpperCase()} applied.` : 'This code is invalid.';
}

export function checkoutPageRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', refuseCrossSitePosts);

    app.get<{ Params: { id: string }; Querystring: { notice?: string } }>(
      '/checkout/:id',
      async (request, reply) => {
        const stored = await currentSession(ctx, request.params.id);
        if (stored === null) return notFound(reply);
        const session = stored.data;
        if (session.status !== 'open') return statusPage(reply, session);
        const view = await checkoutView(ctx, stored, ctx.notices.read(request.query.notice));
        const once = session.mode === 'payment';
        return sendPage(reply, 200, {
          title: `${once ? 'Pay for' : 'Subscribe to'} ${view.product?.name ?? view.price.id}`,
          body: once ? renderPaymentCheckout(view) : renderCheckout(view),
          formTargets: [session.success_url, session.cancel_url],
        });
      },
    );

    app.post<{ Params: { id: string } }>('/checkout/:id/promotion-code', async (request, reply) => {
      const form = (request.body ?? {}) as FormObject;
      if ((await ctx.docs.get('checkout.session', request.params.id)) === null)
        return notFound(reply);
      const notice = await promotionCodeNotice(ctx, request.params.id, form);
      if (notice === null) return reply.redirect(`/checkout/${request.params.id}`, 303);
      return reply.redirect(
        `/checkout/${request.params.id}?notice=${ctx.notices.post(notice)}`,
        303,
      );
    });

    app.post<{ Params: { id: string } }>('/checkout/:id/pay', async (request, reply) => {
      const email = typedEmail(request.body as FormObject | undefined);
      if ((await ctx.docs.get('checkout.session', request.params.id)) === null)
        return notFound(reply);
      const method = chosenMethod(request.body as FormObject | undefined);
      const outcome = await payCheckout(ctx, request.params.id, email, method);
      if (!outcome.value.paid) return statusPage(reply, outcome.value.session, 409);
      await within(outcome.delivered, PAY_WAIT_MS);
      return reply.redirect(
        successUrlOf(outcome.value.session) ?? `/checkout/${request.params.id}`,
        303,
      );
    });

    app.post<{ Params: { id: string } }>('/checkout/:id/cancel', async (request, reply) => {
      const stored = await currentSession(ctx, request.params.id);
      if (stored === null) return notFound(reply);
      if (stored.data.cancel_url) return reply.redirect(stored.data.cancel_url, 303);
      return sendPage(reply, 200, {
        title: 'Checkout canceled',
        body: html`<main><div class="card" style="max-width:520px;margin:60px auto">${header('You left the checkout without paying.')}<p><a href="/checkout/${stored.data.id}">Back to the checkout</a></p></div></main>`,
      });
    });
  };
}
