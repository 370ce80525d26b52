// What the embedded defaults run on: the payment simulator's own credentials and prices and the
// development identity provider's audience (each refused or unused in production), and the example
// entitlements the simulator's prices come with.
import { projectPath } from '../project-root.ts';

export const SIMULATOR_API_KEY = 'sk_test_simulator';
export const SIMULATOR_WEBHOOK_SECRET = 'whsec_local_simulator';
export const SIMULATOR_PRICES = 'pro=price_sim_pro,team=price_sim_team';
export const DEV_IDP_AUDIENCE = 'billing-service-dev';
/** The entitlements the embedded defaults use (the simulator and its own prices): an example to copy. */
export const EXAMPLE_ENTITLEMENTS_FILE = projectPath('config', 'entitlements.example.json');
/** DATABASE_URL for PGlite in memory: one process, nothing kept. */
export const IN_MEMORY = 'memory://';
