// The hosted checkout page: what is bought and for how much a month, a Pay button and a way back.
// Pay creates the subscription and its paid invoice, sends the webhooks (waiting briefly for them,
// so the merchant's success page already sees the upgrade) and 303s to success_url with
// {CHECKOUT_SESSION_ID} filled in. Cancel 303s to cancel_url; the session stays open, as on Stripe.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type Stripe from 'stripe';
import { currentSession, payCheckout } from '../checkout-flow.ts';
import { within, type SimContext } from '../context.ts';
import type { FormObject } from '../form.ts';
import type { SessionExtra } from '../objects/checkout.ts';
import { crossSite, dateOf, header, html, money, sendPage, type Html } from './layout.ts';

const PAY_WAIT_MS = 5_000;
type Session = Stripe.Checkout.Session;

const successUrlOf = (session: Session): string | null =>
  session.success_url?.replaceAll('{CHECKOUT_SESSION_ID}', session.id) ?? null;

function statusPage(reply: FastifyReply, session: Session, status = 200): FastifyReply {
  const success = successUrlOf(session);
  const paid = session.status === 'complete';
  const body = html`<main><div class="card" style="max-width:520px;margin:60px auto">${header(paid ? 'This checkout is complete.' : 'This checkout session has expired.')}
    <p><span class="badge ${session.status ?? ''}">${session.status}</span> <code>${session.id}</code></p>
    <p>${paid ? html`The payment went through${session.subscription ? html` and subscription <code>${String(session.subscription)}</code> is active` : ''}.` : 'It can no longer be paid. Start a new checkout from the merchant.'}</p>
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

export function checkoutPageRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { id: string } }>('/checkout/:id', async (request, reply) => {
      const stored = await currentSession(ctx, request.params.id);
      if (stored === null) return notFound(reply);
      const session = stored.data;
      if (session.status !== 'open') return statusPage(reply, session);
      const line = (stored.extra as unknown as SessionExtra).line_items[0]!;
      const price = (await ctx.docs.require<Stripe.Price>('price', line.price)).data;
      const product = (await ctx.docs.get<Stripe.Product>('product', String(price.product)))?.data;
      const customer =
        typeof session.customer === 'string'
          ? (await ctx.docs.get<Stripe.Customer>('customer', session.customer))?.data
          : undefined;
      const email = customer?.email ?? session.customer_email;
      const emailField: Html = email
        ? html`<div class="field">${email}</div>`
        : html`<input type="email" name="email" placeholder="you@example.com" autocomplete="email">`;
      const body = html`<main class="checkout">
        <section>
          <p class="muted small"><span class="badge test">TEST MODE</span> Payments Simulator</p>
          <p class="muted">Subscribe to ${product?.name ?? price.id}</p>
          <div class="price">${money(price.unit_amount, price.currency)}<span class="muted small" style="font-weight:400"> per month</span></div>
          ${line.quantity > 1 ? html`<p>Quantity ${line.quantity} · ${money(session.amount_total, session.currency)} per month in total</p>` : ''}
          <p class="muted small">${product?.description ?? ''}</p>
        </section>
        <section class="card">
          <form method="post" action="/checkout/${session.id}/pay">
            <label class="small muted">Email</label>${emailField}
            <label class="small muted">Card</label><div class="field">4242 4242 4242 4242 · 12/34 · 123 <span class="muted small">(simulated, no money moves)</span></div>
            <button class="primary" type="submit">Pay ${money(session.amount_total, session.currency)} and subscribe</button>
          </form>
          <form method="post" action="/checkout/${session.id}/cancel" style="margin-top:14px;text-align:center">
            <button class="link" type="submit">Cancel and return</button>
          </form>
          <p class="muted small" style="margin-top:18px">Session <code>${session.id}</code>, open until ${dateOf(session.expires_at)}.</p>
        </section>
      </main>`;
      return sendPage(reply, 200, {
        title: `Subscribe to ${product?.name ?? price.id}`,
        body,
        formTargets: [session.success_url, session.cancel_url],
      });
    });

    app.post<{ Params: { id: string } }>('/checkout/:id/pay', async (request, reply) => {
      if (crossSite(request))
        return sendPage(reply, 403, {
          title: 'Forbidden',
          body: html`<main><p>Cross-site form posts are refused.</p></main>`,
        });
      const typed = (request.body as FormObject | undefined)?.email;
      const email =
        typeof typed === 'string' && /^[^\s@]+@[^\s@]+$/.test(typed.trim())
          ? typed.trim()
          : undefined;
      if ((await ctx.docs.get('checkout.session', request.params.id)) === null)
        return notFound(reply);
      const outcome = await payCheckout(ctx, request.params.id, email);
      if (!outcome.value.paid) return statusPage(reply, outcome.value.session, 409);
      await within(outcome.delivered, PAY_WAIT_MS);
      return reply.redirect(
        successUrlOf(outcome.value.session) ?? `/checkout/${request.params.id}`,
        303,
      );
    });

    app.post<{ Params: { id: string } }>('/checkout/:id/cancel', async (request, reply) => {
      if (crossSite(request))
        return sendPage(reply, 403, {
          title: 'Forbidden',
          body: html`<main><p>Cross-site form posts are refused.</p></main>`,
        });
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
