// /_sim/...: the lifecycle controls as JSON endpoints for tests and scripts (same API key). Each
// answers after the events it caused had their first delivery attempt (or 10 s), saying which
// events were emitted and whether each reached the webhook endpoint. /_sim/calls reads (GET) and
// resets (DELETE) the count of API calls served; /_sim/customers/:id/advance moves a customer's
// clock as a test clock's advance does; /_sim/payment_intents/:id/settle and .../fail decide a
// bank debit (payment-settlement.ts); /_sim/settings reads (GET) and changes (POST, a form) the
// dashboard's switches (settings.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { CallCounter } from '../call-counter.ts';
import { payCheckout } from '../checkout-flow.ts';
import { within, type Outcome, type SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import { AUTOMATIC, type Trigger } from '../events.ts';
import { PAYMENT_METHOD_TYPES } from '../objects/payment-intents.ts';
import { oneOf } from '../params.ts';
import { SETTLEMENTS, settlePayment, type Settlement } from '../payment-settlement.ts';
import { cancelAtPeriodEnd, cancelNow, scheduleCancel } from '../subscription-changes.ts';
import { failRenewal, renew, type Changed } from '../subscription-lifecycle.ts';
import { endTrial } from '../trial-end.ts';
import { pause, resume } from '../subscription-pause.ts';
import { changeSettings } from '../settings.ts';
import { advanceCustomerClock } from './clock-control.ts';
import { paramsOf, triggerOf } from './request.ts';

const CONTROL_WAIT_MS = 10_000;

export const SUBSCRIPTION_ACTIONS: Record<
  string,
  (ctx: SimContext, id: string, trigger: Trigger) => Promise<Outcome<Changed>>
> = {
  renew: (ctx, id) => renew(ctx, id, AUTOMATIC),
  'fail-renewal': (ctx, id) => failRenewal(ctx, id, AUTOMATIC),
  // The classic way (cancel_at_period_end), as Stripe's Dashboard and the API's flag still do.
  'cancel-at-period-end': (ctx, id, trigger) => cancelAtPeriodEnd(ctx, id, true, trigger),
  // The flexible billing mode's way (cancel_at alone), as Stripe's portal does.
  'schedule-cancel': (ctx, id, trigger) => scheduleCancel(ctx, id, trigger),
  // Withdraws a cancellation scheduled either way.
  'resume-at-period-end': (ctx, id, trigger) => cancelAtPeriodEnd(ctx, id, false, trigger),
  'cancel-now': (ctx, id, trigger) => cancelNow(ctx, id, trigger),
  'end-trial': (ctx, id, trigger) => endTrial(ctx, id, trigger),
  'end-trial-with-card': (ctx, id, trigger) => endTrial(ctx, id, trigger, { withCard: true }),
  pause: (ctx, id, trigger) => pause(ctx, id, trigger),
  resume: (ctx, id, trigger) => resume(ctx, id, trigger),
};

/** The outcome's events with their delivery state after the wait. */
export async function eventsReport(ctx: SimContext, outcome: Outcome<unknown>, waitMs: number) {
  await within(outcome.delivered, waitMs);
  if (outcome.events.length === 0) return [];
  const rows = await ctx.db.query<{ id: string; delivered: boolean }>(
    'SELECT id, delivered_at IS NOT NULL AS delivered FROM sim_events WHERE id = ANY($1)',
    [outcome.events.map((e) => e.id)],
  );
  const delivered = new Map(rows.map((row) => [row.id, row.delivered]));
  return outcome.events.map((event) => ({ ...event, delivered: delivered.get(event.id) ?? false }));
}

export function controlRoutes(ctx: SimContext, calls: CallCounter): FastifyPluginAsync {
  return async (app) => {
    app.get('/calls', async () => ({ calls: calls.snapshot() }));
    app.delete('/calls', async (_request, reply) => {
      calls.reset();
      return reply.status(204).send();
    });

    app.get('/settings', async () => ctx.settings);
    app.post('/settings', async (request) => {
      changeSettings(ctx.settings, paramsOf(request));
      return ctx.settings;
    });

    app.post<{ Params: { id: string; action: string } }>(
      '/subscriptions/:id/:action',
      async (request) => {
        const action = SUBSCRIPTION_ACTIONS[request.params.action];
        if (action === undefined)
          throw invalidParam(
            `Unknown action ${request.params.action}; use one of ${Object.keys(SUBSCRIPTION_ACTIONS).join(', ')}.`,
          );
        const outcome = await action(ctx, request.params.id, triggerOf(request));
        return { ...outcome.value, events: await eventsReport(ctx, outcome, CONTROL_WAIT_MS) };
      },
    );

    /** Moves a customer's clock ahead within its periods (clock-control.ts). */
    app.post<{ Params: { id: string } }>('/customers/:id/advance', async (request) =>
      advanceCustomerClock(ctx, request.params.id, paramsOf(request).to),
    );

    /** Pays an open checkout session as the page's Pay button does (by card, or a bank debit). */
    app.post<{ Params: { id: string } }>('/checkout/sessions/:id/pay', async (request) => {
      const method = oneOf(paramsOf(request), 'payment_method_type', PAYMENT_METHOD_TYPES);
      const outcome = await payCheckout(ctx, request.params.id, undefined, method);
      if (!outcome.value.paid)
        throw invalidParam(
          `Checkout session ${request.params.id} is ${outcome.value.session.status}; only an open session can be paid.`,
        );
      return { ...outcome.value, events: await eventsReport(ctx, outcome, CONTROL_WAIT_MS) };
    });

    /** A processing bank debit settles or fails, as the bank decides days later. */
    app.post<{ Params: { id: string; action: string } }>(
      '/payment_intents/:id/:action',
      async (request) => {
        const { id, action } = request.params;
        if (!Object.hasOwn(SETTLEMENTS, action))
          throw invalidParam(`Unknown action ${action}; use settle or fail.`);
        const outcome = await settlePayment(ctx, id, action as Settlement);
        return { ...outcome.value, events: await eventsReport(ctx, outcome, CONTROL_WAIT_MS) };
      },
    );
  };
}
