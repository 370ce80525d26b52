// The dashboard's drift controls (drift.ts): on each live subscription, "Cancel" and "Switch to ..."
// without events, and a form that subscribes an existing or a new customer without events. Each
// makes the state the application holds wrong, so a person can watch its reconciliation repair it.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import { DRIFT_ACTIONS, subscribeElsewhere } from '../drift.ts';
import { planTitle, unitOf } from '../objects/catalog.ts';
import { itemOf } from '../objects/subscriptions.ts';
import { ENDED } from '../subscription-lifecycle.ts';
import { html, refuseCrossSitePosts, type Html } from './layout.ts';
import { adjustmentsOf } from '../objects/offers.ts';
import { describeChange, noticeOf } from './notices.ts';

const LOST =
  'No event was sent or even recorded: the application learns of it only by reconciling with the provider (npm run cli -- reconcile).';

/** "Pro", or "Pro (per year)" for a price that does not bill monthly. */
const planName = (price: Stripe.Price): string => {
  const unit = unitOf(price);
  return unit === 'month' ? planTitle(price) : `${planTitle(price)} (per ${unit})`;
};

const silentButton = (path: string, label: string, fields: Record<string, string> = {}): Html =>
  html`<form class="inline" method="post" action="${path}">${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit">${label}</button></form> `;

/** "Without events: Cancel, Switch to ..." for a live subscription; nothing for an ended one. */
export function driftButtonsFor(s: Stripe.Subscription, prices: Stripe.Price[]): Html | '' {
  if (ENDED.includes(s.status)) return '';
  const path = (action: string) => `/dashboard/drift/subscriptions/${s.id}/${action}`;
  const current = itemOf(s).price.id;
  const switches = s.cancel_at_period_end
    ? []
    : prices
        .filter((p) => p.id !== current)
        .map((p) => silentButton(path('switch'), `Switch to ${planName(p)}`, { price: p.id }));
  return html`<br><span class="muted small">Without events:</span> ${silentButton(path('cancel-now'), 'Cancel')}${switches}`;
}

/** The section that explains drift and subscribes a customer without events. */
export function driftSection(prices: Stripe.Price[]): Html {
  return html`<h2>Drift: changes whose events are lost</h2>
    <p class="small muted">A change made in the dashboard whose webhook never arrives, as when an endpoint stayed disabled longer than Stripe keeps events, or a customer who subscribed before the application was connected. The buttons marked <em>Without events</em> above, and this form, change the subscriptions and send nothing. ${LOST}</p>
    <form method="post" action="/dashboard/drift/subscriptions" class="small">
      <label>Customer <input type="text" name="customer" placeholder="cus_… (empty: a new customer)"></label>
      <label>E-mail of a new customer <input type="email" name="email" placeholder="someone@example.com"></label>
      <label>Plan <select name="price">${prices.map((p) => html`<option value="${p.id}">${planName(p)}</option>`)}</select></label>
      <button type="submit">Subscribe without events</button>
    </form>`;
}

type Form = Record<string, string | undefined>;
const field = (body: unknown, name: string): string | undefined => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

export function driftPanelRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', refuseCrossSitePosts);

    app.post<{ Params: { id: string; action: string } }>(
      '/dashboard/drift/subscriptions/:id/:action',
      async (request, reply) => {
        const { id, action: name } = request.params;
        const action = DRIFT_ACTIONS[name];
        const notice = await noticeOf(async () => {
          if (action === undefined) return `Unknown action ${name}.`;
          const outcome = await action(ctx, id, field(request.body, 'price'));
          const adjustments = await adjustmentsOf(ctx.docs, outcome.value.subscription);
          return `${describeChange(name, outcome.value, adjustments)} ${LOST}`;
        });
        return reply.redirect(`/?notice=${ctx.notices.post(notice)}`, 303);
      },
    );

    app.post('/dashboard/drift/subscriptions', async (request, reply) => {
      const notice = await noticeOf(async () => {
        const { value } = await subscribeElsewhere(ctx, {
          customer: field(request.body, 'customer'),
          email: field(request.body, 'email'),
          price: field(request.body, 'price') ?? '',
        });
        const who = value.customer.email ?? value.customer.id;
        return `Subscribed ${who} (${value.customer.id}) to ${planName(itemOf(value.subscription).price)}: ${value.subscription.id}, with no metadata linking it to a user of the application. ${LOST}`;
      });
      return reply.redirect(`/?notice=${ctx.notices.post(notice)}`, 303);
    });
  };
}
