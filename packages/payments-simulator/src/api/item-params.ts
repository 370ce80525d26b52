// `items[0]` and `proration_behavior` of POST /v1/subscriptions/:id: the one item's new price or
// quantity (a whole number from 0, as SubscriptionUpdateParams.Item.quantity takes), named by its
// id. Adding items, deleting one and the item's other fields are refused with a 400 naming them.
import { invalidParam } from '../errors.ts';
import type { FormObject } from '../form.ts';
import { PRORATION_BEHAVIORS, type ItemChange } from '../item-change.ts';
import { allowOnly, array, hash, oneOf, text, whole } from '../params.ts';

const ITEM_PARAMS = [
  'billing_thresholds',
  'clear_usage',
  'current_trial',
  'deleted',
  'discounts',
  'id',
  'metadata',
  'plan',
  'price',
  'price_data',
  'quantity',
  'tax_rates',
];
const SIMULATED_ITEM_UPDATES = ['id', 'price', 'quantity'];

/** `items[0]`: the one item's new price or quantity; undefined when not given. */
export function itemChange(params: FormObject): ItemChange | undefined {
  const items = array(params, 'items');
  const proration = oneOf(params, 'proration_behavior', PRORATION_BEHAVIORS) ?? 'create_prorations';
  if (items === undefined) return undefined;
  if (items.length > 1)
    throw invalidParam(
      'The payments simulator does not support items[1]: a simulated subscription has one item.',
      'items[1]',
    );
  const item = hash({ item: items[0]! }, 'item', 'items[0]')!;
  allowOnly(item, ITEM_PARAMS, 'items[0]');
  const other = Object.keys(item).find((name) => !SIMULATED_ITEM_UPDATES.includes(name));
  if (other !== undefined)
    throw invalidParam(
      `The payments simulator does not support updating items[0][${other}]; it simulates an item's price and quantity.`,
      `items[0][${other}]`,
    );
  const id = text(item, 'id', { param: 'items[0][id]' });
  if (id === undefined)
    throw invalidParam(
      'The payments simulator does not support adding an item (items[0] without an id): a simulated subscription has one item.',
      'items[0][id]',
    );
  return {
    item: id,
    price: text(item, 'price', { param: 'items[0][price]' }),
    quantity: whole(item, 'quantity', { min: 0, max: 999_999 }, 'items[0][quantity]'),
    proration,
  };
}
