// token: prints an access token from the embedded development identity provider, and nothing
// else, so `TOKEN=$(npm run -s token -- --sub alice --email alice@example.com)` works. Bare
// `npm run token` is for a default development user, said on stderr. With --org (and --role) it
// names an organisation as an identity provider would; with --service it is a backend's token
// holding the scope that reports seat counts.
import { devIssuerUrl, organizationClaims, signToken } from '../../dev/identity-provider.ts';
import { loadOrCreateSigningKey } from '../../dev/signing-key.ts';
import { DEV_SERVICE_CLIENT } from '../../config.ts';
import { runningService } from '../../process/service-record.ts';
import {
  cliConfig,
  optionalOption,
  UsageError,
  type Command,
  type CommandInput,
  type CommandIo,
} from '../command.ts';

const MAX_TTL = 366 * 86_400;
/** Whom a token is for when no --sub is given. */
const DEFAULT_SUBJECT = 'dev-user';
const emailOf = (sub: string) => `${sub}@example.com`;

/**
 * The subject and e-mail asked for, each defaulted (a backend's token has no e-mail unless one is
 * given); a default is said on stderr, never stdout.
 */
function identityOf(input: CommandInput, io: CommandIo): { sub: string; email?: string } {
  const sub = optionalOption(input, 'sub') ?? DEFAULT_SUBJECT;
  if (input.values.service === true)
    return { sub, email: optionalOption(input, 'email') ?? undefined };
  const email = optionalOption(input, 'email') ?? emailOf(sub);
  if (input.values.sub === undefined || input.values.email === undefined)
    io.progress(
      `token for sub "${sub}", e-mail ${email} (--sub <subject> --email <address> for another user)`,
    );
  return { sub, email };
}

function ttlSeconds(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_TTL)
    throw new UsageError(
      `--ttl must be a whole number of seconds from 1 to ${MAX_TTL}, got ${JSON.stringify(raw)}`,
    );
  return Number(raw);
}

/** The claims --org, --role and --service add. */
function extraClaims(
  input: CommandInput,
  config: ReturnType<typeof cliConfig>,
): Record<string, unknown> {
  const { org, role, service } = input.values as {
    org?: string;
    role?: string[];
    service?: boolean;
  };
  const roles = role ?? [];
  if (org === undefined && roles.length > 0) throw new UsageError('--role needs --org');
  if (org !== undefined && config.organizations === null)
    throw new UsageError('--org needs organisations: IDP_ORG_CLAIM is unset');
  if (org !== undefined && service === true)
    throw new UsageError("--service is the backend's token: it names no organisation (no --org)");
  return {
    ...(org !== undefined && organizationClaims(config.organizations!, org, roles)),
    ...(service === true && {
      scope: [...new Set([config.serviceScope, config.creditsScope])].join(' '),
      client_id: DEV_SERVICE_CLIENT,
      gty: 'client-credentials',
    }),
  };
}

export const tokenCommand: Command = {
  name: 'token',
  usage:
    '[--sub <subject>] [--email <address>] [--ttl <seconds>] [--org <id> [--role <role>]...] [--service]',
  summary: 'print an access token from the development identity provider',
  help: [
    'Signs a token with the development signing key under DATA_DIR, for the issuer and audience of the service',
    'running on that DATA_DIR (whatever its port), or, with none running, of one started with these HOST and PORT.',
    'Refused when IDP_ISSUER is set: tokens then come from that identity provider.',
    '',
    `  --sub <subject>     the token's subject, which becomes the user's idp_id; default ${DEFAULT_SUBJECT}`,
    `  --email <address>   the e-mail claim; default <subject>@example.com (none with --service)`,
    '  --ttl <seconds>     lifetime, default 3600',
    '  --org <id>          the organisation the token names (the org_id claim, or where IDP_ORG_CLAIM says)',
    "  --role <role>       the caller's role there (org_role, or IDP_ORG_ROLE_CLAIM); repeat for several",
    "  --service           the development backend's token: its scope holds BILLING_SERVICE_SCOPE and",
    `                      BILLING_CREDITS_SCOPE, its client_id is ${DEV_SERVICE_CLIENT} (the BILLING_SERVICE_CLIENTS`,
    '                      default here): it reports seats and spends credits',
  ].join('\n'),
  options: {
    sub: { type: 'string' },
    email: { type: 'string' },
    ttl: { type: 'string', default: '3600' },
    org: { type: 'string' },
    role: { type: 'string', multiple: true },
    service: { type: 'boolean' },
  },
  positionals: [],
  async run(input, io) {
    const { sub, email } = identityOf(input, io);
    const ttl = ttlSeconds(String(input.values.ttl));
    const config = cliConfig();
    if (config.identity.kind !== 'dev')
      throw new Error(
        'IDP_ISSUER is set: tokens come from that identity provider, not this command',
      );
    const extra = extraClaims(input, config);
    // For the service running on this DATA_DIR, whatever its port; with none running, for HOST and PORT.
    const issuer =
      (await runningService(config.dataDir))?.issuer ?? devIssuerUrl(config.host, config.port);
    const key = await loadOrCreateSigningKey(config.dataDir);
    io.out(
      await signToken(key, {
        sub,
        email,
        issuer,
        audience: config.identity.audience,
        ttlSeconds: ttl,
        extra,
      }),
    );
  },
};
