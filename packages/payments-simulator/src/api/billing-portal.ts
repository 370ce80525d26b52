// POST /v1/billing_portal/sessions: a session of the hosted billing portal for one customer, as
// Stripe makes it: `url` is the simulator's portal page (pages/portal-page.ts), which follows the
// session's `configuration` (the account's default unless one is given; it must be active),
// `return_url` (else the configuration's default_return_url) where its "Return" link leads. Flows
// and locales are refused.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import type { SimContext } from '../context.ts';
import { invalidParam } from '../errors.ts';
import { Expander } from '../expand.ts';
import { newId } from '../ids.ts';
import { allowOnly, expansions, text } from '../params.ts';
import { configurationOf, DEFAULT_CONFIGURATION } from '../objects/portal-configurations.ts';
import { nowSeconds, useCustomerClock } from '../clock.ts';
import { paramsOf } from './request.ts';

const PARAMS = [
  'configuration',
  'customer',
  'customer_account',
  'expand',
  'flow_data',
  'locale',
  'on_behalf_of',
  'return_url',
];

function returnUrlOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  try {
    if (['http:', 'https:'].includes(new URL(value).protocol)) return value;
  } catch {
    // refused below, as Stripe refuses it
  }
  throw invalidParam('Not a valid URL', 'return_url', 'url_invalid');
}

export function billingPortalRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);

    app.post('/billing_portal/sessions', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, PARAMS);
      for (const unsupported of ['flow_data', 'on_behalf_of', 'customer_account', 'locale']) {
        if (params[unsupported] !== undefined)
          throw invalidParam(
            `The payments simulator does not support ${unsupported}; it serves the portal's home page only.`,
            unsupported,
          );
      }
      const configuration = await configurationOf(
        ctx.docs,
        text(params, 'configuration') ?? DEFAULT_CONFIGURATION,
        { param: 'configuration' },
      );
      if (!configuration.active)
        throw invalidParam(
          `The configuration ${configuration.id} is not active: activate it, or use another.`,
          'configuration',
        );
      const customer = text(params, 'customer', { required: true })!;
      await ctx.docs.require('customer', customer, { param: 'customer' });
      useCustomerClock(customer);
      const id = newId('bps_');
      const session: Stripe.BillingPortal.Session = {
        id,
        object: 'billing_portal.session',
        configuration: configuration.id,
        created: nowSeconds(),
        customer,
        customer_account: null,
        flow: null,
        livemode: false,
        locale: null,
        on_behalf_of: null,
        return_url: returnUrlOf(text(params, 'return_url')) ?? configuration.default_return_url,
        url: `${ctx.baseUrl}/p/session/${id}`,
      };
      await ctx.docs.save('billing_portal.session', session);
      return expander.expand(session, expansions(params));
    });
  };
}
