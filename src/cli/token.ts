// npm run token -- --sub alice --email alice@example.com [--ttl 3600]
// Prints an access token from the embedded development identity provider.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { devIssuerUrl, loadOrCreateSigningKey, signToken } from '../dev/identity-provider.ts';

try {
  const { values } = parseArgs({ options: { sub: { type: 'string' }, email: { type: 'string' }, ttl: { type: 'string', default: '3600' } } });
  if (!values.sub || !values.email) throw new Error('usage: npm run token -- --sub <subject> --email <address> [--ttl seconds]');
  const config = loadConfig();
  if (config.identity.kind !== 'dev') throw new Error('IDP_ISSUER is set: tokens come from that identity provider, not this command');
  const key = await loadOrCreateSigningKey(config.dataDir);
  const issuer = devIssuerUrl(config.host, config.port);
  console.log(await signToken(key, { sub: values.sub, email: values.email, issuer, audience: config.identity.audience, ttlSeconds: Number(values.ttl) }));
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
