// POST /_sim/customers/:id/advance, as a Stripe test clock's advance: the customer's time moves
// ahead within its periods (what is made then is dated then), never back and never past a period's
// end, which a renewal reaches with its own control.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  API_KEY,
  databaseLabel,
  openCheckout,
  pay,
  startStack,
  type SimulatorStack,
  onceInTheSuite,
} from './harness.ts';

describe(`a customer's clock moved ahead (${databaseLabel})`, onceInTheSuite, () => {
  let stack: SimulatorStack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  const advance = (customer: string, to: number) =>
    fetch(`${stack.simulator.url}/_sim/customers/${customer}/advance`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `to=${to}`,
    });

  test('within the period it moves, and the customer’s next portal session is dated then', async () => {
    const { customer, session } = await openCheckout(stack.stripe, 'advance-ok');
    await pay(stack.simulator, session.id);
    const id = (await stack.stripe.checkout.sessions.retrieve(session.id)).subscription as string;
    const { current_period_start: start, current_period_end: end } = (
      await stack.stripe.subscriptions.retrieve(id)
    ).items.data[0]!;
    const to = start + 10 * 86_400;
    assert.equal((await advance(customer.id, to)).status, 200);
    const portal = await stack.stripe.billingPortal.sessions.create({ customer: customer.id });
    assert.ok(portal.created >= to && portal.created < to + 60, String(portal.created - to));

    const past = await advance(customer.id, end);
    assert.equal(past.status, 400);
    assert.match(((await past.json()) as { error: { message: string } }).error.message, /boundary/);
    assert.equal((await advance(customer.id, start)).status, 400, 'never back');
  });
});
