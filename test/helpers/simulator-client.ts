// The official stripe SDK pointed at a test app's embedded simulator, for reading back what the
// service created there.
import Stripe from 'stripe';
import type { TestApp } from './app.ts';

export function simulatorClient(t: TestApp): Stripe {
  const url = new URL(t.composition.simulatorUrl!);
  return new Stripe(t.config.payments.apiKey, {
    host: url.hostname,
    port: url.port,
    protocol: 'http',
  });
}
