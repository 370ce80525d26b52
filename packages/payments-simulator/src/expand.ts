// `expand[]`: replaces ids in a response by the objects they name, along dotted paths
// (`customer`, `subscription.latest_invoice`, `data.customer` in lists, `items.data.price.product`),
// at most four levels, as Stripe does. `line_items` of a checkout session and `refunds` of a charge
// are computed on demand.
import type Stripe from 'stripe';
import { invalidParam } from './errors.ts';
import { lineItemsOf, presentSession, type SessionExtra } from './objects/checkout.ts';
import { refundsOf } from './objects/refunds.ts';
import type { Documents, SimType } from './store.ts';

const PREFIXES: [string, SimType][] = [
  ['sub_sched_', 'subscription_schedule'],
  ['bpc_', 'billing_portal.configuration'],
  ['cus_', 'customer'],
  ['sub_', 'subscription'],
  ['in_', 'invoice'],
  ['price_', 'price'],
  ['prod_', 'product'],
  ['cs_', 'checkout.session'],
  ['promo_', 'promotion_code'],
  ['di_', 'discount'],
  ['pi_', 'payment_intent'],
  ['ch_', 'charge'],
  ['py_', 'charge'],
  ['re_', 'refund'],
];

type Target = Record<string, unknown>;

export class Expander {
  constructor(
    private readonly docs: Documents,
    private readonly baseUrl: () => string,
  ) {}

  private async load(id: string, path: string): Promise<object> {
    const type = PREFIXES.find(([prefix]) => id.startsWith(prefix))?.[1];
    const found = type === undefined ? null : await this.docs.get<object>(type, id);
    if (found === null) throw invalidParam(`This property cannot be expanded (${path}).`, 'expand');
    return type === 'checkout.session'
      ? presentSession(found.data as Stripe.Checkout.Session, this.baseUrl())
      : found.data;
  }

  private async step(target: Target, segments: string[], path: string): Promise<void> {
    const [key, ...rest] = segments as [string, ...string[]];
    let value = target[key];
    if (key === 'line_items' && target.object === 'checkout.session') {
      const stored = await this.docs.get<Stripe.Checkout.Session>(
        'checkout.session',
        target.id as string,
      );
      value = target[key] = await lineItemsOf(
        this.docs,
        stored!.data,
        stored!.extra as unknown as SessionExtra,
      );
    } else if (key === 'refunds' && target.object === 'charge') {
      // Since API 2022-11-15 a charge's refunds are listed only when expanded.
      value = target[key] = await refundsOf(this.docs, target.id as string);
    } else if (typeof value === 'string') {
      value = target[key] = await this.load(value, path);
    } else if (value === undefined) {
      throw invalidParam(`This property cannot be expanded (${path}).`, 'expand');
    }
    if (rest.length === 0 || value === null || typeof value !== 'object') return;
    for (const child of Array.isArray(value) ? value : [value]) {
      if (child !== null && typeof child === 'object') await this.step(child as Target, rest, path);
    }
  }

  /** Expands `paths` in place on `object` and returns it. */
  async expand<T extends object>(object: T, paths: readonly string[]): Promise<T> {
    for (const path of paths) await this.step(object as Target, path.split('.'), path);
    return object;
  }
}
