// /v1/customers: create, retrieve, update (customer.updated), list (by email).
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import { mutate, type Outcome, type SimContext } from '../context.ts';
import { previousAttributes, type Trigger } from '../events.ts';
import { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import { buildCustomer, type CustomerInput } from '../objects/customers.ts';
import { allowOnly, expansions, mergeMetadata, metadata, text } from '../params.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf, triggerOf } from './request.ts';

// Every parameter Stripe's customer create/update takes; the ones not modelled here are accepted and ignored.
const WRITE_PARAMS = [
  'address',
  'balance',
  'business_name',
  'cash_balance',
  'coupon',
  'default_source',
  'description',
  'email',
  'expand',
  'individual_name',
  'invoice_prefix',
  'invoice_settings',
  'metadata',
  'name',
  'next_invoice_sequence',
  'payment_method',
  'phone',
  'preferred_locales',
  'promotion_code',
  'shipping',
  'source',
  'tax',
  'tax_exempt',
  'tax_id_data',
  'test_clock',
  'validate',
];

function fieldsOf(params: FormObject): CustomerInput {
  return {
    email: text(params, 'email', { max: 512 }),
    name: text(params, 'name', { max: 256 }),
    description: text(params, 'description', { max: 350 }),
    phone: text(params, 'phone', { max: 20 }),
    metadata: metadata(params),
  };
}

/** POST /v1/customers/:id: the given fields; an empty one is cleared. customer.updated when any changed. */
function updateCustomer(
  ctx: SimContext,
  id: string,
  { params, trigger }: { params: FormObject; trigger: Trigger },
): Promise<Outcome<Stripe.Customer>> {
  const input = fieldsOf(params);
  return mutate(ctx, trigger, async ({ docs, emit }) => {
    const { data: before } = await docs.require<Stripe.Customer>('customer', id, { lock: true });
    const after: Stripe.Customer = {
      ...before,
      email: input.email ?? (params.email === '' ? null : before.email),
      name: input.name ?? (params.name === '' ? null : (before.name ?? null)),
      description: input.description ?? (params.description === '' ? null : before.description),
      phone: input.phone ?? (params.phone === '' ? null : (before.phone ?? null)),
      metadata: mergeMetadata(before.metadata, input.metadata),
    };
    const previous = previousAttributes(before, after);
    if (previous !== undefined) {
      await docs.save('customer', after);
      await emit('customer.updated', after, previous);
    }
    return after;
  });
}

export function customerRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);

    app.post('/customers', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, WRITE_PARAMS);
      const input = fieldsOf(params);
      const customer = buildCustomer({ ...input, metadata: mergeMetadata({}, input.metadata) });
      await ctx.docs.save('customer', customer);
      return expander.expand(customer, expansions(params));
    });

    app.get<{ Params: { id: string } }>('/customers/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand']);
      const { data } = await ctx.docs.require<Stripe.Customer>('customer', request.params.id);
      return expander.expand(data, expansions(params));
    });

    app.post<{ Params: { id: string } }>('/customers/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, WRITE_PARAMS);
      const { value } = await updateCustomer(ctx, request.params.id, {
        params,
        trigger: triggerOf(request),
      });
      return expander.expand(value, expansions(params));
    });

    app.get('/customers', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, [...PAGE_PARAMS, 'email', 'created', 'test_clock']);
      const page = await ctx.docs.list<Stripe.Customer>(
        'customer',
        { ref: text(params, 'email') },
        pageOfParams(params),
      );
      const body = listOf(
        '/v1/customers',
        page.data.map((row) => row.data),
        page.hasMore,
      );
      return expander.expand(body, expansions(params));
    });
  };
}
