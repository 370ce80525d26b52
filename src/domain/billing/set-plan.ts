// Sets the plan a user is sold: the tier whose price their next checkout uses. The plan is held on
// the server, so request input never chooses a price. An existing subscription keeps its price;
// the tier changes only when the provider reports a subscription to the new price.
import type { UsersRepository } from '../ports/store.ts';
import { UnknownPlanError, UnknownUserError } from './operator-errors.ts';

export interface PlanChange {
  idpId: string;
  /** The stored plan before; null meant BILLING_DEFAULT_PLAN. */
  previous: string | null;
  plan: string;
}

export async function setPlan(
  users: UsersRepository,
  prices: ReadonlyMap<string, string>,
  idpId: string,
  plan: string,
): Promise<PlanChange> {
  if (!prices.has(plan)) throw new UnknownPlanError(plan, [...prices.keys()]);
  const before = await users.findByIdpId(idpId);
  if (before === null) throw new UnknownUserError(idpId);
  const after = await users.setPlan(idpId, plan);
  if (after === null) throw new UnknownUserError(idpId);
  return { idpId, previous: before.plan, plan: after.plan ?? plan };
}
