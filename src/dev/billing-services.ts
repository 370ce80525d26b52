// What /billing's pages and forms are given: the services an account page reads and acts through.
import type { CheckoutService } from '../domain/billing/checkout-service.ts';
import type { CreditsService } from '../domain/credits/credits-service.ts';
import type { PortalService } from '../domain/billing/portal-service.ts';
import type { SubscriptionSummaryService } from '../domain/billing/subscription-summary.ts';
import type { UserService } from '../domain/users/user-service.ts';
import type { OrganizationPageServices } from './billing-organization.ts';

export interface BillingAccountServices extends OrganizationPageServices {
  users: UserService;
  /** Checkouts and portal sessions one user may start a minute through these forms: the API's limit. */
  perUserPerMinute: number;
  checkout: CheckoutService;
  portal: PortalService;
  /** What GET /billing/subscription answers: the status and the tier's features and limits. */
  summaries: SubscriptionSummaryService;
  /** The caller's credits and a pack's checkout, as GET /credits and POST /credits/checkout. */
  credits: CreditsService;
  simulatorUrl: string;
  /** Where a team checkout comes back to (APP_URL). */
  appUrl: string;
}
