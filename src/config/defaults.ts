// What the embedded defaults run on: the payment simulator's credentials, prices and packs, the
// development identity provider's audience, client and claims (each refused or unused in
// production), and the example entitlements that go with the simulator's prices.
import { projectPath } from '../adapters/project-root.ts';

export const SIMULATOR_API_KEY = 'sk_test_simulator';
export const SIMULATOR_WEBHOOK_SECRET = 'whsec_local_simulator';
/** Each tier by the month and by the year, so the portal offers both intervals on `npm start`. */
export const SIMULATOR_PRICES =
  'pro=price_sim_pro,pro@year=price_sim_pro_year,team=price_sim_team,team@year=price_sim_team_year';
export const SIMULATOR_CREDIT_PACKS =
  'small=price_sim_credits_small:500,large=price_sim_credits_large:2500';
export const DEV_IDP_AUDIENCE = 'billing-service-dev';
/** The client `npm run token -- --service` signs for: the development backend. */
export const DEV_SERVICE_CLIENT = 'billing-dev-backend';
export const DEV_ORG_CLAIMS = { organization: 'org_id', role: 'org_role' };
/** Organisations are keyed by their issuer; the development provider's address follows PORT, this does not. */
export const DEV_ORG_ISSUER = 'development';
export const EXAMPLE_ENTITLEMENTS_FILE = projectPath('config', 'entitlements.example.json');
/** DATABASE_URL for PGlite in memory: one process, nothing kept. */
export const IN_MEMORY = 'memory://';
