// POST /v1/refunds: refunds a one-time payment, named by `charge` or `payment_intent`, by `amount`
// or by all that is left (refunds.ts); `reason` and `metadata` are kept. Retrieving and listing
// refunds is in payments.ts. Connect's parameters are refused; the rest are accepted and ignored.
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import { invalidParam, unsupported } from '../errors.ts';
import { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import { allowOnly, expansions, flag, metadata, oneOf, text, whole } from '../params.ts';
import { createRefund, type RefundRequest } from '../refunds.ts';
import { paramsOf, triggerOf } from './request.ts';

const REFUND_PARAMS = [
  'amount',
  'charge',
  'currency',
  'customer',
  'expand',
  'instructions_email',
  'metadata',
  'origin',
  'payment_intent',
  'reason',
  'refund_application_fee',
  'reverse_transfer',
];

function refundRequest(params: FormObject): RefundRequest {
  allowOnly(params, REFUND_PARAMS);
  const charge = text(params, 'charge');
  const paymentIntent = text(params, 'payment_intent');
  if (charge === undefined && paymentIntent === undefined)
    throw invalidParam(
      'One of the following params should be provided for this request: payment_intent or charge.',
    );
  if (charge !== undefined && paymentIntent !== undefined)
    throw invalidParam(
      'You may only specify one of these parameters: charge, payment_intent.',
      'payment_intent',
    );
  for (const name of ['refund_application_fee', 'reverse_transfer'])
    if (flag(params, name)) throw unsupported(name, 'there is no Connect here');
  if (text(params, 'origin') !== undefined)
    throw unsupported('origin', 'refunds go back to the payment method');
  const amount = whole(params, 'amount', { min: Number.MIN_SAFE_INTEGER, max: 99_999_999 });
  if (amount !== undefined && amount < 1) throw invalidParam('Invalid positive integer', 'amount');
  return {
    charge,
    paymentIntent,
    amount,
    reason: oneOf(params, 'reason', ['duplicate', 'fraudulent', 'requested_by_customer'] as const),
    metadata: metadata(params),
  };
}

export function refundRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    app.post('/refunds', async (request) => {
      const params = paramsOf(request);
      const { value } = await createRefund(ctx, refundRequest(params), triggerOf(request));
      return expander.expand(value, expansions(params));
    });
  };
}
