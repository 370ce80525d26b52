// GET /: the simulator's dashboard for a person: where webhooks go, subscriptions with buttons for
// what would otherwise take a month (renew, fail renewal, cancel at period end, cancel now),
// open checkouts, customers, and recent events with their delivery state (and Resend).
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import { eventsReport, SUBSCRIPTION_ACTIONS } from '../api/controls.ts';
import type { SimContext } from '../context.ts';
import { StripeApiError } from '../errors.ts';
import { AUTOMATIC } from '../events.ts';
import { itemOf } from '../objects/subscriptions.ts';
import { crossSite, dateOf, header, html, money, sendPage, type Html } from './layout.ts';

const CLICK_WAIT_MS = 5_000;
interface EventLine {
  id: string;
  type: string;
  created: number;
  delivered: boolean;
  attempts: number;
  next_attempt_at: number | null;
  last_response: string | null;
}

const button = (path: string, label: string, style = ''): Html =>
  html`<form class="inline" method="post" action="${path}"><button type="submit" class="${style}">${label}</button></form> `;

function actionsFor(s: Stripe.Subscription): Html {
  const path = (action: string) => `/dashboard/subscriptions/${s.id}/${action}`;
  if (s.status === 'canceled' || s.status === 'incomplete_expired') return html`<span class="muted">—</span>`;
  if (s.cancel_at_period_end) {
    return html`${button(path('renew'), 'End period')}${button(path('resume-at-period-end'), 'Keep subscription')}${button(path('cancel-now'), 'Cancel now', 'danger')}`;
  }
  const pastDue = s.status === 'past_due';
  return html`${button(path('renew'), pastDue ? 'Payment succeeds' : 'Renew')}${button(path('fail-renewal'), pastDue ? 'Payment fails again' : 'Fail renewal')}${button(path('cancel-at-period-end'), 'Cancel at period end')}${button(path('cancel-now'), 'Cancel now', 'danger')}`;
}

function deliveryOf(e: EventLine): Html {
  if (e.delivered) return html`<span class="badge delivered">delivered</span>`;
  const state = e.next_attempt_at === null ? html`<span class="badge failed">gave up</span>` : html`<span class="badge pending">pending</span>`;
  return html`${state} <span class="muted">${e.attempts} attempt${e.attempts === 1 ? '' : 's'}${e.last_response ? `, last: ${e.last_response.slice(0, 80)}` : ''}</span> ${button(`/dashboard/events/${e.id}/resend`, 'Resend')}`;
}

export function dashboardRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { notice?: string } }>('/', async (request, reply) => {
      const page = { limit: 50 };
      const subscriptions = (await ctx.docs.list<Stripe.Subscription>('subscription', {}, page)).data.map((r) => r.data);
      const customers = (await ctx.docs.list<Stripe.Customer>('customer', {}, { limit: 100 })).data.map((r) => r.data);
      const sessions = (await ctx.docs.list<Stripe.Checkout.Session>('checkout.session', { status: ['open'] }, { limit: 20 })).data.map((r) => r.data);
      const events = await ctx.db.query<EventLine>(
        'SELECT id, type, created::float8 AS created, delivered_at IS NOT NULL AS delivered, attempts, next_attempt_at::float8 AS next_attempt_at, last_response FROM sim_events ORDER BY seq DESC LIMIT 30',
      );
      const emailOf = new Map(customers.map((c) => [c.id, c.email ?? c.id]));
      const target = ctx.webhookUrl();
      const notice = typeof request.query.notice === 'string' ? request.query.notice.slice(0, 300) : null;
      const body = html`<main>
        ${header(`API ${ctx.baseUrl}/v1 · webhooks to ${target ?? 'nowhere yet (waiting for the service to listen)'}`)}
        ${notice ? html`<div class="notice">${notice}</div>` : ''}
        <h2>Subscriptions</h2>
        <table><tr><th>Subscription</th><th>Customer</th><th>Plan</th><th>Status</th><th>Current period</th><th>Actions</th></tr>
        ${subscriptions.map((s) => {
          const item = itemOf(s);
          return html`<tr><td><code>${s.id}</code></td><td>${emailOf.get(String(s.customer)) ?? String(s.customer)}</td>
            <td>${item.price.nickname ?? item.price.id}<br><span class="muted">${money(item.price.unit_amount, item.price.currency)}/month</span></td>
            <td><span class="badge ${s.status}">${s.status}</span>${s.cancel_at_period_end ? html`<br><span class="muted small">cancels at period end</span>` : ''}</td>
            <td class="small">${dateOf(item.current_period_start)}<br>→ ${dateOf(item.current_period_end)}</td><td>${actionsFor(s)}</td></tr>`;
        })}
        ${subscriptions.length === 0 ? html`<tr><td colspan="6" class="muted">None yet: pay a checkout session to create one.</td></tr>` : ''}</table>
        <h2>Open checkout sessions</h2>
        <table><tr><th>Session</th><th>Customer</th><th>Amount</th><th>Expires</th></tr>
        ${sessions.map((s) => html`<tr><td><a href="/checkout/${s.id}"><code>${s.id.slice(0, 28)}…</code></a></td><td>${emailOf.get(String(s.customer)) ?? s.customer_email ?? '—'}</td><td>${money(s.amount_total, s.currency)}/month</td><td class="small">${dateOf(s.expires_at)}</td></tr>`)}
        ${sessions.length === 0 ? html`<tr><td colspan="4" class="muted">None open.</td></tr>` : ''}</table>
        <h2>Customers</h2>
        <table><tr><th>Customer</th><th>Email</th><th>Name</th><th>Created</th></tr>
        ${customers.map((c) => html`<tr><td><code>${c.id}</code></td><td>${c.email ?? '—'}</td><td>${c.name ?? '—'}</td><td class="small">${dateOf(c.created)}</td></tr>`)}
        ${customers.length === 0 ? html`<tr><td colspan="4" class="muted">None yet.</td></tr>` : ''}</table>
        <h2>Recent events</h2>
        <table><tr><th>Created</th><th>Type</th><th>Event</th><th>Delivery</th></tr>
        ${events.map((e) => html`<tr><td class="small">${dateOf(e.created)}</td><td>${e.type}</td><td><code>${e.id}</code></td><td class="small">${deliveryOf(e)}</td></tr>`)}
        ${events.length === 0 ? html`<tr><td colspan="4" class="muted">None yet.</td></tr>` : ''}</table>
      </main>`;
      return sendPage(reply, 200, 'Payments Simulator', body);
    });

    app.post<{ Params: { id: string; action: string } }>('/dashboard/subscriptions/:id/:action', async (request, reply) => {
      if (crossSite(request)) return sendPage(reply, 403, 'Forbidden', html`<main><p>Cross-site form posts are refused.</p></main>`);
      const action = SUBSCRIPTION_ACTIONS[request.params.action];
      let notice: string;
      if (action === undefined) {
        notice = `Unknown action ${request.params.action}.`;
      } else {
        try {
          const outcome = await action(ctx, request.params.id, AUTOMATIC);
          const report = await eventsReport(ctx, outcome, CLICK_WAIT_MS);
          const sent = report.map((e) => `${e.type} (${e.delivered ? 'delivered' : 'pending'})`).join(', ');
          notice = `${request.params.action} ${request.params.id}: now ${outcome.value.subscription.status}. ${sent ? `Events: ${sent}.` : 'Nothing changed.'}`;
        } catch (error) {
          if (!(error instanceof StripeApiError)) throw error;
          notice = error.message;
        }
      }
      return reply.redirect(`/?notice=${encodeURIComponent(notice)}`, 303);
    });

    app.post<{ Params: { id: string } }>('/dashboard/events/:id/resend', async (request, reply) => {
      if (crossSite(request)) return sendPage(reply, 403, 'Forbidden', html`<main><p>Cross-site form posts are refused.</p></main>`);
      await ctx.delivery.resend(request.params.id);
      return reply.redirect(`/?notice=${encodeURIComponent(`Sending ${request.params.id} again.`)}`, 303);
    });
  };
}
