// /v1/subscription_schedules: create (from_subscription), update (phases, end_behavior,
// proration_behavior, metadata), retrieve, list (by customer; `scheduled` for those not started,
// which the simulator never has), release and cancel (schedule-changes.ts), with the
// subscription_schedule.* events and the subscription's customer.subscription.* ones.
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import { Expander } from '../expand.ts';
import type { Schedule } from '../objects/schedules.ts';
import { allowOnly, expansions, flag, text } from '../params.ts';
import {
  cancelSchedule,
  releaseSchedule,
  scheduleFromSubscription,
  updateSchedule,
} from '../schedule-changes.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf, triggerOf } from './request.ts';
import { readScheduleCreate, readScheduleUpdate } from './schedule-params.ts';

const LIST_PARAMS = [
  ...PAGE_PARAMS,
  'canceled_at',
  'completed_at',
  'created',
  'customer',
  'customer_account',
  'released_at',
  'scheduled',
];

export function subscriptionScheduleRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    type ById = { Params: { id: string } };

    app.post('/subscription_schedules', async (request) => {
      const params = paramsOf(request);
      const read = readScheduleCreate(params);
      const { value } = await scheduleFromSubscription(ctx, read, triggerOf(request));
      return expander.expand(value, expansions(params));
    });

    app.post<ById>('/subscription_schedules/:id', async (request) => {
      const params = paramsOf(request);
      const read = readScheduleUpdate(params);
      const { value } = await updateSchedule(ctx, request.params.id, read, triggerOf(request));
      return expander.expand(value, expansions(params));
    });

    app.post<ById>('/subscription_schedules/:id/release', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand', 'preserve_cancel_date']);
      const preserve = flag(params, 'preserve_cancel_date') ?? false;
      const { value } = await releaseSchedule(ctx, request.params.id, preserve, triggerOf(request));
      return expander.expand(value, expansions(params));
    });

    app.post<ById>('/subscription_schedules/:id/cancel', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand', 'invoice_now', 'prorate']);
      flag(params, 'invoice_now');
      flag(params, 'prorate');
      const { value } = await cancelSchedule(ctx, request.params.id, triggerOf(request));
      return expander.expand(value, expansions(params));
    });

    app.get<ById>('/subscription_schedules/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand']);
      const { data } = await ctx.docs.require<Schedule>('subscription_schedule', request.params.id);
      return expander.expand(data, expansions(params));
    });

    app.get('/subscription_schedules', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, LIST_PARAMS);
      for (const name of ['canceled_at', 'completed_at', 'created', 'released_at'])
        if (params[name] !== undefined)
          throw invalidParam(
            `The payments simulator does not support listing schedules by ${name}; it lists them by customer.`,
            name,
          );
      const scheduled = flag(params, 'scheduled');
      const page = await ctx.docs.list<Schedule>(
        'subscription_schedule',
        {
          customer: text(params, 'customer'),
          status: scheduled ? ['not_started'] : undefined,
        },
        pageOfParams(params),
      );
      const data = page.data.map((row) => row.data);
      return expander.expand(
        listOf('/v1/subscription_schedules', data, page.hasMore),
        expansions(params),
      );
    });
  };
}
