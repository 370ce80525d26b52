// A checkout session's line item, checked as Stripe checks it: one line naming a configured price
// by id with a quantity; a recurring price in subscription mode, a one-time price in payment mode,
// each refused in the other mode with Stripe's words. Inline price_data is not simulated.
import type Stripe from 'stripe';
import { invalidParam, unsupported } from '../errors.ts';
import type { FormObject } from '../form.ts';
import type { SessionMode } from '../objects/checkout.ts';
import { allowOnly, array, hash, text, whole } from '../params.ts';
import type { Documents } from '../store.ts';

const LINE_ITEM_PARAMS = [
  'adjustable_quantity',
  'dynamic_tax_rates',
  'metadata',
  'price',
  'price_data',
  'quantity',
  'tax_rates',
];
/** Stripe's words for a price the mode cannot sell, naming `param`. */
function wrongPrice(mode: SessionMode, param: string) {
  return invalidParam(
    mode === 'payment'
      ? 'You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.'
      : 'You must provide at least one recurring price in `subscription` mode when using prices.',
    param,
  );
}

export async function lineItem(
  docs: Documents,
  params: FormObject,
  mode: SessionMode,
): Promise<{ price: Stripe.Price; quantity: number }> {
  const items = array(params, 'line_items');
  if (items === undefined || items.length === 0) {
    if (mode === 'payment') throw invalidParam('Missing required param: line_items.', 'line_items');
    throw wrongPrice(mode, 'line_items');
  }
  if (items.length > 1) throw unsupported('line_items[1]', 'a simulated checkout sells one price');
  const item = hash({ item: items[0]! }, 'item', 'line_items[0]')!;
  allowOnly(item, LINE_ITEM_PARAMS, 'line_items[0]');
  if (item.price_data !== undefined)
    throw unsupported(
      'line_items[0][price_data]',
      'name one of the configured prices in line_items[0][price]',
    );
  const priceId = text(item, 'price', { required: true, param: 'line_items[0][price]' })!;
  const quantity = whole(item, 'quantity', { min: 1, max: 999_999 }, 'line_items[0][quantity]');
  if (quantity === undefined)
    throw invalidParam(
      'Quantity is required. Add `quantity` to `line_items[0]`',
      'line_items[0][quantity]',
    );
  const price = (
    await docs.require<Stripe.Price>('price', priceId, { param: 'line_items[0][price]' })
  ).data;
  const sells = mode === 'payment' ? 'one_time' : 'recurring';
  if (price.type !== sells || !price.active) throw wrongPrice(mode, 'line_items[0][price]');
  return { price, quantity };
}
