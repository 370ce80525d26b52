// Sets the plan a user (or an organisation) is sold: the tier whose price their next checkout uses. The plan is held on
// the server, so request input never chooses a price. An existing subscription keeps its price;
// the tier changes only when the provider reports a subscription to the new price.
import type { OrganizationsRepository } from '../ports/organizations.ts';
import type { UsersRepository } from '../ports/users.ts';
import { UnknownOrganizationError, UnknownPlanError, UnknownUserError } from './operator-errors.ts';

export interface PlanChange {
  idpId: string;
  /** The stored plan before; null meant BILLING_DEFAULT_PLAN. */
  previous: string | null;
  plan: string;
}

/** The same for an organisation, known by its issuer and its id at the identity provider. */
export async function setOrganizationPlan(
  organizations: OrganizationsRepository,
  prices: ReadonlyMap<string, string>,
  { issuer, idpOrgId }: { issuer: string; idpOrgId: string },
  plan: string,
): Promise<PlanChange> {
  if (!prices.has(plan)) throw new UnknownPlanError(plan, [...prices.keys()]);
  const before = await organizations.findByIdpOrgId(issuer, idpOrgId);
  if (before === null) throw new UnknownOrganizationError(idpOrgId);
  const after = await organizations.setPlan(issuer, idpOrgId, plan);
  if (after === null) throw new UnknownOrganizationError(idpOrgId);
  return { idpId: idpOrgId, previous: before.plan, plan: after.plan ?? plan };
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
