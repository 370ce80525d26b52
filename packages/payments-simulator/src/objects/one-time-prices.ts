// The one-time prices the simulator sells beside its plans: credit packs, each a product of its own
// ("Credits: small") with one USD price under the configured id (small 9.00, large 35.00, any
// other 10.00), bought once through a checkout in payment mode. Created on start, keeping the
// `created` of those already there, as the plans are (catalog.ts). A subscription refuses them.
import type Stripe from 'stripe';
import { invalidParam } from '../errors.ts';
import type { Documents } from '../store.ts';
import { nowSeconds } from '../time.ts';
import { priceObject, productObject } from './catalog.ts';

const AMOUNTS: Record<string, number> = { small: 900, large: 3500 };
const DEFAULT_AMOUNT = 1000;

/** A subscription's price recurs: Stripe refuses a one-time price there in these words. */
export function requireRecurring(price: Stripe.Price, param: string): Stripe.Price {
  if (price.type === 'one_time')
    throw invalidParam(
      'The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.',
      param,
    );
  return price;
}

/** What a pack costs, by its name, in cents. */
export const packAmount = (pack: string): number => AMOUNTS[pack] ?? DEFAULT_AMOUNT;

const buildPackProduct = (pack: string, priceId: string, created: number): Stripe.Product =>
  productObject({
    id: `prod_sim_credits_${pack}`,
    name: `Credits: ${pack}`,
    description: 'A pack of credits, bought once (payments simulator)',
    metadata: { credit_pack: pack },
    defaultPrice: priceId,
    created,
  });

const buildPackPrice = (pack: string, id: string, product: string, created: number) =>
  priceObject({
    id,
    created,
    lookup_key: `credits_${pack}`,
    metadata: { credit_pack: pack },
    nickname: `Credits: ${pack}`,
    product,
    recurring: null,
    amount: packAmount(pack),
  });

/** Creates each pack's product and one-time price (pack name -> price id). */
export async function seedOneTimePrices(
  docs: Documents,
  packs: ReadonlyMap<string, string>,
): Promise<void> {
  for (const [pack, id] of packs) {
    const existing = await docs.get<Stripe.Price>('price', id);
    const created = existing?.data.created ?? nowSeconds();
    const product = buildPackProduct(pack, id, created);
    await docs.save('product', product);
    await docs.save('price', buildPackPrice(pack, id, product.id, created));
  }
}
