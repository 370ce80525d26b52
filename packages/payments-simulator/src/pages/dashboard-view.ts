// The dashboard's page (what pages/dashboard.ts serves): where webhooks go, the settings,
// subscriptions with a button for each lifecycle step a person may take next (renew, fail renewal,
// cancel at period end, cancel now; on a trial, end it now, with the card on file, without a
// payment method, or adding a card first) and the drift controls, open checkouts, one-time
// payments (payments-panel.ts), customers, and recent events with what the service answered to
// each and a Resend button.
import type Stripe from 'stripe';
import type { NextCharge } from '../next-charge.ts';
import type { SessionOffer } from '../objects/checkout.ts';
import type { SimSettings } from '../settings.ts';
import { itemOf, scheduledEnd } from '../objects/subscriptions.ts';
import { ENDED } from '../subscription-lifecycle.ts';
import { discountName, perPeriod } from './charge-words.ts';
import { driftButtonsFor, driftSection } from './drift-panel.ts';
import { dateOf, header, html, money, type Html } from './layout.ts';
import { paymentsSection, type PaymentLine } from './payments-panel.ts';
import { settingsSection } from './settings-panel.ts';

/** An event as the dashboard lists it, with its delivery. */
export interface EventLine {
  id: string;
  type: string;
  created: number;
  delivered: boolean;
  attempts: number;
  next_attempt_at: number | null;
  last_response: string | null;
}

export interface DashboardView {
  subscriptions: Stripe.Subscription[];
  /** Each subscription's next charge, by its id. */
  charges: Map<string, NextCharge>;
  customers: Stripe.Customer[];
  sessions: Stripe.Checkout.Session[];
  /** What each open session will charge, by its id. */
  sessionCharges: Map<string, SessionOffer>;
  events: EventLine[];
  prices: Stripe.Price[];
  /** One-time payments (credit packs), newest first. */
  payments: PaymentLine[];
  settings: SimSettings;
  /** The simulator's own origin. */
  baseUrl: string;
  webhookUrl: string | null;
  notice: string | null;
}

const button = (path: string, label: string, style = ''): Html =>
  html`<form class="inline" method="post" action="${path}"><button type="submit" class="${style}">${label}</button></form> `;

/** `hasCard`: the subscription or its customer has a payment method to charge. */
function actionsFor(s: Stripe.Subscription, hasCard: boolean): Html {
  const path = (action: string) => `/dashboard/subscriptions/${s.id}/${action}`;
  if (ENDED.includes(s.status)) return html`<span class="muted">—</span>`;
  if (s.status === 'trialing') {
    const end = hasCard
      ? button(path('end-trial'), 'End trial now (charges the card)')
      : html`${button(path('end-trial'), 'End trial without a payment method')}${button(path('end-trial-with-card'), 'Add a card and end trial')}`;
    return html`${end}${button(path('cancel-now'), 'Cancel now', 'danger')}`;
  }
  if (scheduledEnd(s) !== null) {
    return html`${button(path('renew'), 'End period')}${button(path('resume-at-period-end'), 'Keep subscription')}${button(path('cancel-now'), 'Cancel now', 'danger')}`;
  }
  if (s.status === 'paused') {
    // Paused after a failed renewal: its invoice is still open, and paying it resumes the subscription.
    const owes = s.status_details?.paused.subscription.type === 'first_payment_failure';
    return html`${owes ? html`${button(path('renew'), 'Payment succeeds')}${button(path('fail-renewal'), 'Payment fails again')}` : ''}${button(path('resume'), 'Resume')}${button(path('cancel-now'), 'Cancel now', 'danger')}`;
  }
  const pastDue = s.status === 'past_due';
  return html`${button(path('renew'), pastDue ? 'Payment succeeds' : 'Renew')}${button(path('fail-renewal'), pastDue ? 'Payment fails again' : 'Fail renewal')}${button(path('pause'), 'Pause')}${button(path('cancel-at-period-end'), 'Cancel at period end')}${button(path('cancel-now'), 'Cancel now', 'danger')}`;
}

/** "200 {...}" -> the status and the body the endpoint answered. */
function answerOf(response: string): { status: string | null; body: string } {
  const match = /^(\d{3})\s?([\s\S]*)$/.exec(response);
  return match ? { status: match[1]!, body: match[2]! } : { status: null, body: response };
}

function deliveryOf(e: EventLine): Html {
  const state = e.delivered
    ? html`<span class="badge delivered">delivered</span>`
    : e.next_attempt_at === null && e.attempts > 0
      ? html`<span class="badge failed">gave up</span>`
      : html`<span class="badge pending">pending</span>`;
  const attempts = html`<span class="muted">${e.attempts} attempt${e.attempts === 1 ? '' : 's'}</span>`;
  return html`${state} ${attempts}`;
}

function responseOf(e: EventLine): Html {
  if (e.last_response === null) return html`<span class="muted">not sent yet</span>`;
  const { status, body } = answerOf(e.last_response);
  const ok = status !== null && status.startsWith('2');
  return html`${status ? html`<span class="badge ${ok ? 'delivered' : 'failed'} status">${status}</span> ` : ''}<code class="answer">${body.slice(0, 160)}</code>`;
}

function statusOf(s: Stripe.Subscription): Html {
  const badge = html`<span class="badge ${s.status}">${s.status.replace('_', ' ')}</span>`;
  if (ENDED.includes(s.status))
    return html`${badge}<br><span class="muted small">ended ${dateOf(s.ended_at)}</span>`;
  const cancels = scheduledEnd(s);
  if (cancels !== null)
    return html`${badge}<br><span class="muted small">cancels ${dateOf(cancels)}${s.cancel_at_period_end ? ' (at period end)' : ' (cancel_at)'}</span>`;
  if (s.status === 'trialing')
    return html`${badge}<br><span class="muted small">trial ends ${dateOf(s.trial_end)}${s.default_payment_method === null ? ', no payment method' : ''}</span>`;
  return badge;
}

/** Customer id -> e-mail, or the id when it has none. */
type Emails = Map<string, string>;

/** What a period of the subscription costs with its discount and tax, and its next invoice. */
function chargeOf(s: Stripe.Subscription, next: NextCharge): Html {
  const { discount } = next.adjustments;
  return html`<span class="muted">${perPeriod(next.period, itemOf(s).price)}</span>${discount === null ? '' : html`<br><span class="muted small">${discountName(discount)}</span>`}${next.at === null ? '' : html`<br><span class="small">next invoice ${money(next.invoice.total, s.currency)} on ${dateOf(next.at)}</span>`}`;
}

function subscriptionsTable(
  { subscriptions, charges, customers, prices }: DashboardView,
  emailOf: Emails,
): Html {
  const customerCard = new Map(
    customers.map((c) => [c.id, c.invoice_settings?.default_payment_method != null]),
  );
  return html`<h2>Subscriptions</h2>
        <table><tr><th>Subscription</th><th>Customer</th><th>Plan</th><th>Status</th><th>Current period</th><th>Actions</th></tr>
        ${subscriptions.map((s) => {
          const item = itemOf(s);
          return html`<tr><td><code>${s.id}</code></td><td>${emailOf.get(String(s.customer)) ?? String(s.customer)}</td>
            <td>${item.quantity ?? 1} × ${item.price.nickname ?? item.price.id}<br>${chargeOf(s, charges.get(s.id)!)}</td>
            <td>${statusOf(s)}</td>
            <td class="small">${dateOf(item.current_period_start)}<br>→ ${dateOf(item.current_period_end)}</td><td>${actionsFor(s, s.default_payment_method !== null || customerCard.get(String(s.customer)) === true)}${driftButtonsFor(s, prices)}</td></tr>`;
        })}
        ${subscriptions.length === 0 ? html`<tr><td colspan="6" class="muted">None yet: pay a checkout session to create one.</td></tr>` : ''}</table>`;
}

/** "$13.20 today", or during a trial "$0.00 today, then $12.00 per month + $1.20 tax". */
function sessionAmount(s: Stripe.Checkout.Session, { first, trial, item }: SessionOffer): Html {
  const today = `${money(s.amount_total, s.currency)} today`;
  return trial ? html`${today}, then ${perPeriod(first.lines[0]!, item.price)}` : html`${today}`;
}

function sessionsTable({ sessions, sessionCharges }: DashboardView, emailOf: Emails): Html {
  return html`<h2>Open checkout sessions</h2>
        <table><tr><th>Session</th><th>Customer</th><th>Amount</th><th>Expires</th></tr>
        ${sessions.map((s) => html`<tr><td><a href="/checkout/${s.id}"><code>${s.id.slice(0, 28)}…</code></a></td><td>${emailOf.get(String(s.customer)) ?? s.customer_email ?? '—'}</td><td>${sessionAmount(s, sessionCharges.get(s.id)!)}</td><td class="small">${dateOf(s.expires_at)}</td></tr>`)}
        ${sessions.length === 0 ? html`<tr><td colspan="4" class="muted">None open.</td></tr>` : ''}</table>`;
}

function customersTable({ customers }: DashboardView): Html {
  return html`<h2>Customers</h2>
        <table><tr><th>Customer</th><th>Email</th><th>Name</th><th>Created</th></tr>
        ${customers.map((c) => html`<tr><td><code>${c.id}</code></td><td>${c.email ?? '—'}</td><td>${c.name ?? '—'}</td><td class="small">${dateOf(c.created)}</td></tr>`)}
        ${customers.length === 0 ? html`<tr><td colspan="4" class="muted">None yet.</td></tr>` : ''}</table>`;
}

function eventsTable({ events }: DashboardView): Html {
  return html`<h2>Recent events</h2>
        <table><tr><th>Created</th><th>Type</th><th>Event</th><th>Delivery</th><th>The service answered</th><th></th></tr>
        ${events.map((e) => html`<tr data-event="${e.id}"><td class="small">${dateOf(e.created)}</td><td>${e.type}</td><td><code>${e.id}</code></td><td class="small">${deliveryOf(e)}</td><td class="small">${responseOf(e)}</td><td>${button(`/dashboard/events/${e.id}/resend`, 'Resend')}</td></tr>`)}
        ${events.length === 0 ? html`<tr><td colspan="6" class="muted">None yet.</td></tr>` : ''}</table>`;
}

export function renderDashboard(view: DashboardView): Html {
  const { webhookUrl: target, notice } = view;
  const emailOf: Emails = new Map(view.customers.map((c) => [c.id, c.email ?? c.id]));
  return html`<main>
        ${header(`API ${view.baseUrl}/v1 · webhooks to ${target ?? 'nowhere yet (waiting for the service to listen)'}`)}
        ${target ? html`<p class="small">The service: <a href="${new URL(target).origin}/billing">billing page</a> · <a href="${new URL(target).origin}/docs">API docs</a> · <a href="${new URL(target).origin}/dev/app-events">what the application was told</a></p>` : ''}
        ${notice ? html`<div class="notice">${notice}</div>` : ''}
        ${settingsSection(view.settings)}
        ${subscriptionsTable(view, emailOf)}
        ${sessionsTable(view, emailOf)}
        ${paymentsSection(view.payments, emailOf)}
        ${customersTable(view)}
        ${driftSection(view.prices)}
        ${eventsTable(view)}
      </main>`;
}
