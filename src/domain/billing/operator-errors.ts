// Errors of the operator commands (src/cli): someone named a user, an organisation or a plan that
// does not exist.
// They never reach HTTP, so they are not codes of the error catalogue (../errors.ts); the CLI
// prints their message as the one line an operator reads.
export class UnknownUserError extends Error {
  constructor(idpId: string) {
    super(
      `no user with idp_id ${JSON.stringify(idpId)} (a user exists once they have called the API)`,
    );
    this.name = 'UnknownUserError';
  }
}

export class UnknownOrganizationError extends Error {
  constructor(idpOrgId: string) {
    super(
      `no organisation with idp_org_id ${JSON.stringify(idpOrgId)} (an organisation exists once a token naming it has been used, or its seats reported)`,
    );
    this.name = 'UnknownOrganizationError';
  }
}

export class UnknownPlanError extends Error {
  constructor(plan: string, tiers: readonly string[]) {
    super(`unknown plan ${JSON.stringify(plan)}: BILLING_PRICES has ${tiers.join(', ')}`);
    this.name = 'UnknownPlanError';
  }
}

/** link-customer refused: either side is linked to someone else, or the provider has no such customer. */
export class LinkRefusedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LinkRefusedError';
  }
}
