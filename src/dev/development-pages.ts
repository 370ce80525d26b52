// The service's development pages as one plugin: `/`, the return pages after the simulator's
// checkout, and `/billing`. They answer only to names of this machine (local-hosts.ts), so a page
// elsewhere whose name was rebound to 127.0.0.1 cannot read or drive them.
import type { FastifyPluginAsync } from 'fastify';
import type { TierPolicy } from '../domain/billing/tier.ts';
import type { Store } from '../domain/ports/store.ts';
import { onlyLocalHosts } from '../http/local-hosts.ts';
import { billingAccountPages } from './billing-account-pages.ts';
import type { BillingAccountServices } from './billing-services.ts';
import { billingPages } from './billing-pages.ts';
import { startPage } from './start-page.ts';

export interface DevelopmentPagesOptions extends Omit<BillingAccountServices, 'policy'> {
  store: Store;
  policy: TierPolicy;
  /** Whether a trial's checkout takes a card, to say what happens when a trial ends. */
  trialRequiresCard: boolean;
  /** Host names besides IP addresses and localhost these pages answer to (APP_URL's). */
  localNames: readonly string[];
}

export function developmentPages(options: DevelopmentPagesOptions): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRequest', onlyLocalHosts(options.localNames));
    await app.register(startPage());
    const policy = { ...options.policy, trialRequiresCard: options.trialRequiresCard };
    await app.register(billingPages(options.store, policy));
    await app.register(billingAccountPages({ ...options, policy }));
  };
}
