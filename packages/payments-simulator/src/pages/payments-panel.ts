// The dashboard's one-time payments (credit packs bought through a checkout in payment mode): each
// customer's payments with their status and what was refunded; on a bank debit still processing,
// "Bank debit settles" and "Bank debit fails" (payment-settlement.ts); on a paid one, a form that
// refunds an amount, all that is left unless another is typed (refunds.ts). Each click sends the
// events the API would and lands on the dashboard with a notice saying what happened.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import { AUTOMATIC } from '../events.ts';
import { refundable } from '../objects/payment-charges.ts';
import { settlePayment, SETTLEMENTS, type Settlement } from '../payment-settlement.ts';
import { createRefund } from '../refunds.ts';
import { html, money, refuseCrossSitePosts, type Html } from './layout.ts';
import { describeEvents, noticeOf } from './notices.ts';

export interface PaymentLine {
  intent: Stripe.PaymentIntent;
  charge: Stripe.Charge | null;
}

/** The newest one-time payments, each with its charge. */
export async function listPayments(ctx: SimContext): Promise<PaymentLine[]> {
  const page = await ctx.docs.list<Stripe.PaymentIntent>('payment_intent', {}, { limit: 50 });
  return Promise.all(
    page.data.map(async ({ data: intent }) => ({
      intent,
      charge:
        intent.latest_charge === null
          ? null
          : ((await ctx.docs.get<Stripe.Charge>('charge', String(intent.latest_charge)))?.data ??
            null),
    })),
  );
}

const dollars = (cents: number): string => (cents / 100).toFixed(2);

function actionsOf({ intent, charge }: PaymentLine): Html | string {
  const post = (path: string, label: string) =>
    html`<form class="inline" method="post" action="${path}"><button type="submit">${label}</button></form> `;
  if (intent.status === 'processing')
    return html`${post(`/dashboard/payment_intents/${intent.id}/settle`, 'Bank debit settles')}${post(`/dashboard/payment_intents/${intent.id}/fail`, 'Bank debit fails')}`;
  if (charge === null || charge.status !== 'succeeded' || refundable(charge) === 0) return '—';
  return html`<form class="inline" method="post" action="/dashboard/charges/${charge.id}/refund">$<input type="text" name="amount" value="${dollars(refundable(charge))}" aria-label="Amount to refund" style="width:7em;margin:0 4px;padding:3px 6px"> <button type="submit">Refund</button></form>`;
}

function statusOf({ intent, charge }: PaymentLine): Html {
  const failed = intent.status === 'requires_payment_method' && intent.last_payment_error !== null;
  const badge = html`<span class="badge ${failed ? 'failed' : intent.status === 'processing' ? 'pending' : intent.status === 'succeeded' ? 'paid' : ''}">${failed ? 'failed' : intent.status}</span>`;
  if (charge === null || charge.amount_refunded === 0) return badge;
  return html`${badge}<br><span class="muted small">${charge.refunded ? 'refunded' : `${money(charge.amount_refunded, charge.currency)} refunded`}</span>`;
}

export function paymentsSection(payments: PaymentLine[], emailOf: Map<string, string>): Html {
  return html`<h2>One-time payments</h2>
    <table><tr><th>Payment</th><th>Customer</th><th>Amount</th><th>Status</th><th>Actions</th></tr>
    ${payments.map((line) => {
      const { intent } = line;
      const who =
        intent.customer === null
          ? `${line.charge?.billing_details.email ?? ''} (guest)`.trim()
          : (emailOf.get(String(intent.customer)) ?? String(intent.customer));
      const pack = intent.metadata.credit_pack;
      return html`<tr data-payment="${intent.id}"><td><code>${intent.id}</code>${pack ? html`<br><span class="muted small">credit pack ${pack}</span>` : ''}</td><td>${who}</td><td>${money(intent.amount, intent.currency)}</td><td>${statusOf(line)}</td><td>${actionsOf(line)}</td></tr>`;
    })}
    ${payments.length === 0 ? html`<tr><td colspan="5" class="muted">None yet: pay a checkout in payment mode.</td></tr>` : ''}</table>`;
}

/** "3.00", "$3", "3.5" -> cents; empty -> undefined (all that is left); anything else -> null. */
function typedAmount(body: unknown): number | undefined | null {
  const typed = (body as Record<string, unknown> | undefined)?.amount;
  if (typed === undefined || (typeof typed === 'string' && typed.trim() === '')) return undefined;
  const match =
    typeof typed === 'string' ? /^\$?(\d{1,8})(?:\.(\d{1,2}))?$/.exec(typed.trim()) : null;
  return match === null ? null : Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

export function paymentsPanelRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('preHandler', refuseCrossSitePosts);

    app.post<{ Params: { id: string; action: string } }>(
      '/dashboard/payment_intents/:id/:action',
      async (request, reply) => {
        const { id, action } = request.params;
        const notice = await noticeOf(async () => {
          if (!Object.hasOwn(SETTLEMENTS, action)) return `Unknown action ${action}.`;
          const outcome = await settlePayment(ctx, id, action as Settlement);
          const { payment_intent: intent } = outcome.value;
          const amount = money(intent.amount, intent.currency);
          const said =
            intent.status === 'succeeded'
              ? `The bank debit of ${amount} settled: the payment succeeded.`
              : `The bank returned the debit of ${amount} (insufficient funds): the payment failed.`;
          return `${said} ${await describeEvents(ctx, outcome)}`;
        });
        return reply.redirect(`/?notice=${ctx.notices.post(notice)}`, 303);
      },
    );

    app.post<{ Params: { id: string } }>(
      '/dashboard/charges/:id/refund',
      async (request, reply) => {
        const notice = await noticeOf(async () => {
          const amount = typedAmount(request.body);
          if (amount === null) return 'Type the amount to refund in dollars, such as 3.00.';
          const outcome = await createRefund(ctx, { charge: request.params.id, amount }, AUTOMATIC);
          const refund = outcome.value;
          return `Refunded ${money(refund.amount, refund.currency)} of ${String(refund.charge)}. ${await describeEvents(ctx, outcome)}`;
        });
        return reply.redirect(`/?notice=${ctx.notices.post(notice)}`, 303);
      },
    );
  };
}
