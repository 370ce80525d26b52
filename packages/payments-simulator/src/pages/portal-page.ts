// The hosted billing portal (POST /v1/billing_portal/sessions gives its address): GET shows the
// customer's account (portal-view.ts) with what the session's configuration offers
// (portal-rules.ts); each button posts here, changes the subscription or card
// through the same code as the API and the dashboard (so the same signed events go out), waits
// briefly for their delivery and comes back with a notice. A session serves its own customer only,
// for an hour after it was created.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type Stripe from 'stripe';
import { SUBSCRIPTION_ACTIONS } from '../api/controls.ts';
import { cardLabel, updateCard } from '../card-update.ts';
import type { Outcome, SimContext } from '../context.ts';
import { AUTOMATIC } from '../events.ts';
import type { FormObject } from '../form.ts';
import { nextCharge } from '../next-charge.ts';
import type { AppliedDiscount } from '../objects/charge.ts';
import { adjustmentsOf, discountById } from '../objects/offers.ts';
import { itemOf } from '../objects/subscriptions.ts';
import { keepCurrentPlan, portalCancelAtPeriodEnd, portalUpdate } from '../portal-changes.ts';
import { changeWaits, portalRules, type PortalRules } from '../portal-rules.ts';
import { pendingChangeOf } from '../schedule-lifecycle.ts';
import { invalidParam } from '../errors.ts';
import { ENDED, type Changed } from '../subscription-lifecycle.ts';
import { nowSeconds, useCustomerClock } from '../clock.ts';
import { header, html, refuseCrossSitePosts, sendPage } from './layout.ts';
import { describeChange, describeEvents, describeScheduled, noticeOf } from './notices.ts';
import { renderPortal, type PortalSubscription, type PortalView } from './portal-view.ts';

type Session = Stripe.BillingPortal.Session;
const SESSION_SECONDS = 3_600;
const ACTIONS = [
  'switch',
  'keep-plan',
  'cancel-at-period-end',
  'resume-at-period-end',
  'cancel-now',
];

/** A page that says why the portal cannot be shown, with the way back when the session has one. */
function gone(
  reply: FastifyReply,
  { status, message, session }: { status: number; message: string; session?: Session },
): FastifyReply {
  const back = session?.return_url
    ? html`<p><a href="${session.return_url}">Return to ${new URL(session.return_url).host}</a></p>`
    : '';
  return sendPage(reply, status, {
    title: 'Billing portal',
    body: html`<main><div class="card" style="max-width:520px;margin:60px auto">${header(message)}${back}</div></main>`,
  });
}

/** The session if it can still be used; otherwise null, with the page saying why already sent. */
async function usableSession(
  ctx: SimContext,
  id: string,
  reply: FastifyReply,
): Promise<Session | null> {
  const session = (await ctx.docs.get<Session>('billing_portal.session', id))?.data;
  if (session !== undefined) useCustomerClock(session.customer); // the page is on its clock
  if (session === undefined)
    gone(reply, { status: 404, message: 'No such billing portal session.' });
  else if (session.created + SESSION_SECONDS < nowSeconds())
    gone(reply, {
      status: 410,
      message: 'This portal session has expired. Open the portal again from the merchant.',
      session,
    });
  else return session;
  return null;
}

async function portalView(
  ctx: SimContext,
  session: Session,
  rules: PortalRules,
  notice: string | null,
): Promise<PortalView> {
  const customer = (await ctx.docs.require<Stripe.Customer>('customer', session.customer)).data;
  const live = (
    await ctx.docs.list<Stripe.Subscription>(
      'subscription',
      { customer: customer.id },
      { limit: 20 },
    )
  ).data
    .map((r) => r.data)
    .filter((s) => !ENDED.includes(s.status));
  const subscriptions = await Promise.all(
    live.map(async (subscription): Promise<PortalSubscription> => {
      const next = await nextCharge(ctx.docs, subscription);
      const { price: current } = itemOf(subscription);
      const offers = rules.prices
        .filter((price) => price.id !== current.id)
        .map((price) => ({ price, waits: changeWaits(rules.configuration, subscription, price) }));
      const pending = await pendingChangeOf(ctx.docs, subscription);
      return { subscription, next, offers, pending };
    }),
  );
  const invoices = (
    await ctx.docs.list<Stripe.Invoice>('invoice', { customer: customer.id }, { limit: 10 })
  ).data.map((r) => r.data);
  const card = await cardLabel(ctx, customer);
  return {
    session,
    rules,
    customer,
    subscriptions,
    invoices,
    discounts: await discountsOf(ctx, invoices),
    card,
    notice,
  };
}

/** The discounts the invoices name, by id, to name their coupons. */
async function discountsOf(
  ctx: SimContext,
  invoices: Stripe.Invoice[],
): Promise<Map<string, AppliedDiscount>> {
  const ids = new Set(
    invoices.flatMap((invoice) =>
      (invoice.total_discount_amounts ?? []).map((d) => String(d.discount)),
    ),
  );
  const found = new Map<string, AppliedDiscount>();
  for (const id of ids) {
    const discount = await discountById(ctx.docs, id);
    if (discount !== null) found.set(id, discount);
  }
  return found;
}

async function replaceCard(ctx: SimContext, session: Session, last4: string): Promise<string> {
  const outcome = await updateCard(ctx, session.customer, last4, AUTOMATIC);
  const customer = (await ctx.docs.require<Stripe.Customer>('customer', session.customer)).data;
  return `Your card is now ${await cardLabel(ctx, customer)}. ${await describeEvents(ctx, outcome)}`;
}

/** Refuses what the configuration leaves out of the portal, as its page does not offer it. */
function refuseUnoffered(rules: PortalRules, action: string): void {
  const offered =
    action === 'cancel-at-period-end'
      ? rules.cancel.includes('at_period_end')
      : action === 'cancel-now'
        ? rules.cancel.includes('immediately')
        : action === 'update-card'
          ? rules.paymentMethodUpdate
          : true;
  if (!offered) throw invalidParam('This portal does not offer that.');
}

async function applyPortalAction(
  ctx: SimContext,
  rules: PortalRules,
  { action, subscription, price }: { action: string; subscription: string; price: string },
): Promise<string> {
  refuseUnoffered(rules, action);
  if (action === 'switch') {
    const outcome = await portalUpdate(ctx, rules, subscription, price);
    const { scheduled } = outcome.value;
    const adjustments = await adjustmentsOf(ctx.docs, outcome.value.subscription);
    const said =
      scheduled === null
        ? describeChange(action, outcome.value, adjustments)
        : describeScheduled(outcome.value.subscription, scheduled, adjustments);
    return `${said} ${await describeEvents(ctx, outcome)}`;
  }
  // "Cancel at period end" the way Stripe's portal does for the pinned API version.
  const outcome: Outcome<Changed> =
    action === 'keep-plan'
      ? await keepCurrentPlan(ctx, subscription)
      : action === 'cancel-at-period-end'
        ? await portalCancelAtPeriodEnd(ctx, subscription)
        : await SUBSCRIPTION_ACTIONS[action]!(ctx, subscription, AUTOMATIC);
  const adjustments = await adjustmentsOf(ctx.docs, outcome.value.subscription);
  return `${describeChange(action, outcome.value, adjustments)} ${await describeEvents(ctx, outcome)}`;
}

export function portalPageRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', refuseCrossSitePosts);

    app.get<{ Params: { id: string }; Querystring: { notice?: string } }>(
      '/p/session/:id',
      async (request, reply) => {
        const session = await usableSession(ctx, request.params.id, reply);
        if (session === null) return reply;
        const rules = await portalRules(ctx.docs, String(session.configuration));
        const view = await portalView(ctx, session, rules, ctx.notices.read(request.query.notice));
        return sendPage(reply, 200, { title: 'Billing portal', body: renderPortal(view) });
      },
    );

    app.post<{ Params: { id: string; action: string } }>(
      '/p/session/:id/:action',
      async (request, reply) => {
        const session = await usableSession(ctx, request.params.id, reply);
        if (session === null) return reply;
        const form = (request.body ?? {}) as FormObject;
        const field = (name: string) =>
          typeof form[name] === 'string' ? (form[name] as string) : '';
        const { action } = request.params;
        const rules = await portalRules(ctx.docs, String(session.configuration));
        let notice: string;
        if (action === 'update-card') {
          notice = await noticeOf(() => {
            refuseUnoffered(rules, action);
            return replaceCard(ctx, session, field('card'));
          });
        } else {
          const subscription = (
            await ctx.docs.get<Stripe.Subscription>('subscription', field('subscription'))
          )?.data;
          if (!ACTIONS.includes(action) || subscription?.customer !== session.customer)
            return gone(reply, {
              status: 404,
              message: 'No such subscription or action for this customer.',
              session,
            });
          notice = await noticeOf(() =>
            applyPortalAction(ctx, rules, {
              action,
              subscription: subscription.id,
              price: field('price'),
            }),
          );
        }
        return reply.redirect(`/p/session/${session.id}?notice=${ctx.notices.post(notice)}`, 303);
      },
    );
  };
}
