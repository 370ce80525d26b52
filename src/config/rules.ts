// What the schema cannot say of one variable alone: production's refusals, variables that need each
// other, the tiers of BILLING_PRICES. Checked once every variable has been through the schema; a
// rule is skipped when a variable it reads already has a problem, so a mistake is told once.
import { isLoopback } from './kinds.ts';
import { IN_MEMORY, SIMULATOR_WEBHOOK_SECRET } from './defaults.ts';
import type { Settings, Variable } from './environment.ts';
import { packPrices, tierNames, tierPrices, trialEntries } from './lists.ts';
import { quoted, type Problems } from './problems.ts';

interface Rule {
  /** The variable a broken rule is reported on. */
  variable: Variable;
  /** The other variables it reads. */
  reads: Variable[];
  /** What is wrong, or undefined when the rule holds. */
  check(settings: Settings): string | undefined;
}

/** The variables the tiers for sale come from: BILLING_PRICES, or the simulator's own without a key. */
export const TIER_VARIABLES: Variable[] = ['BILLING_PRICES', 'PAYMENTS_API_KEY'];

const tiers = (settings: Settings) => tierNames(settings.BILLING_PRICES);
const repeated = (names: string[]) => names.find((name, index) => names.indexOf(name) !== index);

/** `variable` is refused with `problem` when `broken`. */
const rule = (
  variable: Variable,
  reads: Variable[],
  broken: (settings: Settings) => boolean,
  problem: string,
): Rule => ({ variable, reads, check: (s) => (broken(s) ? problem : undefined) });

const inProduction = (variable: Variable, broken: (s: Settings) => boolean, problem: string) =>
  rule(variable, ['NODE_ENV'], (s) => s.NODE_ENV === 'production' && broken(s), problem);

const requiredInProduction = (variable: Variable, refused: string) =>
  inProduction(
    variable,
    (s) => s[variable] === undefined,
    `is required when NODE_ENV=production (${refused} is refused)`,
  );

const requiredWith = (variable: Variable, other: Variable, example = '') =>
  rule(
    variable,
    [other],
    (s) => s[other] !== undefined && s[variable] === undefined,
    `is required when ${other} is set${example}`,
  );

const needs = (variable: Variable, other: Variable) =>
  rule(
    variable,
    [other],
    (s) => s[variable] !== undefined && s[other] === undefined,
    `needs ${other} to be set`,
  );

const RULES: Rule[] = [
  requiredInProduction('IDP_ISSUER', 'the development identity provider'),
  requiredWith('IDP_AUDIENCE', 'IDP_ISSUER'),
  needs('IDP_JWKS_URL', 'IDP_ISSUER'),
  requiredInProduction('PAYMENTS_API_KEY', 'the payment simulator'),
  needs('PAYMENTS_API_BASE', 'PAYMENTS_API_KEY'),
  requiredWith('PAYMENTS_WEBHOOK_SECRET', 'PAYMENTS_API_KEY'),
  // The simulator's secret is published in this repository: anyone could sign events with it.
  inProduction(
    'PAYMENTS_WEBHOOK_SECRET',
    (s) => s.PAYMENTS_WEBHOOK_SECRET?.includes(SIMULATOR_WEBHOOK_SECRET) === true,
    `cannot be the simulator's published ${SIMULATOR_WEBHOOK_SECRET} when NODE_ENV=production`,
  ),
  inProduction(
    'DATABASE_URL',
    (s) => s.DATABASE_URL === IN_MEMORY,
    'cannot be memory:// when NODE_ENV=production (everything would be lost on restart)',
  ),
  rule(
    'WEB_CONCURRENCY',
    ['DATABASE_URL'],
    (s) => s.WEB_CONCURRENCY > 1 && s.DATABASE_URL === IN_MEMORY,
    'above 1 needs PostgreSQL, embedded (DATABASE_URL unset) or not: PGlite in memory is single-process',
  ),
  needs('METRICS_HOST', 'METRICS_PORT'),
  requiredWith('BILLING_PRICES', 'PAYMENTS_API_KEY', ' (e.g. pro=price_123)'),
  { variable: 'BILLING_PRICES', reads: [], check: pricesProblem },
  { variable: 'BILLING_CREDIT_PACKS', reads: ['BILLING_PRICES'], check: packsProblem },
  { variable: 'BILLING_DEFAULT_PLAN', reads: TIER_VARIABLES, check: defaultPlanProblem },
  { variable: 'BILLING_ORG_PLAN', reads: TIER_VARIABLES, check: orgPlanProblem },
  // The development identity provider has organisation claims of its own (build.ts); a real one
  // names its role claim only beside the organisation's.
  rule(
    'IDP_ORG_ROLE_CLAIM',
    ['IDP_ORG_CLAIM', 'IDP_ISSUER'],
    (s) =>
      s.IDP_ORG_ROLE_CLAIM !== undefined &&
      s.IDP_ORG_CLAIM === undefined &&
      s.IDP_ISSUER !== undefined,
    'needs IDP_ORG_CLAIM to be set',
  ),
  { variable: 'BILLING_TRIAL_DAYS', reads: TIER_VARIABLES, check: trialTiersProblem },
  requiredWith('APP_WEBHOOK_SECRET', 'APP_WEBHOOK_URL'),
  // Without a URL, development signs its own receiver's events with it; elsewhere it would sign nothing.
  rule(
    'APP_WEBHOOK_SECRET',
    ['APP_WEBHOOK_URL', 'NODE_ENV'],
    (s) =>
      s.APP_WEBHOOK_SECRET !== undefined &&
      s.APP_WEBHOOK_URL === undefined &&
      s.NODE_ENV !== 'development',
    'needs APP_WEBHOOK_URL to be set',
  ),
  // Events say who may do what: in production they travel encrypted unless they stay on this machine.
  inProduction(
    'APP_WEBHOOK_URL',
    (s) =>
      s.APP_WEBHOOK_URL !== undefined &&
      new URL(s.APP_WEBHOOK_URL).protocol === 'http:' &&
      !isLoopback(new URL(s.APP_WEBHOOK_URL).hostname.replace(/^\[|\]$/g, '')),
    'must be https:// when NODE_ENV=production (http:// only for a loopback address)',
  ),
];

function packsProblem(settings: Settings): string | undefined {
  const packs = packPrices(settings.BILLING_CREDIT_PACKS, false);
  const outOfRange = packs.find(({ credits }) => credits < 1 || credits > 10_000_000);
  if (outOfRange !== undefined)
    return `gives pack "${outOfRange.name}" ${outOfRange.credits} credits: 1 to 10000000`;
  const twice = repeated(packs.map(({ name }) => name));
  if (twice !== undefined) return `names pack "${twice}" twice`;
  const prices = new Set(tierPrices(settings.BILLING_PRICES).map(({ price }) => price));
  const recurring = packs.find(({ price }) => prices.has(price));
  if (recurring !== undefined)
    return `names ${recurring.price}, a price of BILLING_PRICES: a pack's price is one-time`;
  return undefined;
}

function pricesProblem(settings: Settings): string | undefined {
  if (tiers(settings).includes('free')) return 'cannot name a tier "free": it is the unpaid tier';
  const entries = tierPrices(settings.BILLING_PRICES);
  const twice = repeated(entries.map(({ tier, interval }) => `${tier}@${interval}`));
  if (twice === undefined) return undefined;
  const [tier, interval] = twice.split('@');
  return interval === 'month' ? `names tier "${tier}" twice` : `names "${twice}" twice`;
}

function notATier(settings: Settings, plan: string | undefined): string | undefined {
  if (plan === undefined || tiers(settings).includes(plan)) return undefined;
  return `must be one of the tiers of BILLING_PRICES (${tiers(settings).join(', ')}), got ${quoted(plan)}`;
}

function defaultPlanProblem(settings: Settings): string | undefined {
  return notATier(settings, settings.BILLING_DEFAULT_PLAN);
}

function orgPlanProblem(settings: Settings): string | undefined {
  return notATier(settings, settings.BILLING_ORG_PLAN);
}

function trialTiersProblem(settings: Settings): string | undefined {
  if (settings.BILLING_TRIAL_DAYS === undefined) return undefined;
  const named = trialEntries(settings.BILLING_TRIAL_DAYS).flatMap(({ tier }) => tier ?? []);
  const unknown = named.find((tier) => !tiers(settings).includes(tier));
  if (unknown !== undefined)
    return `names ${quoted(unknown)}, which is not a tier of BILLING_PRICES (${tiers(settings).join(', ')})`;
  const twice = repeated(named);
  return twice === undefined ? undefined : `names tier ${quoted(twice)} twice`;
}

/** Adds to `problems` each rule `settings` break. */
export function checkRules(settings: Settings, problems: Problems): void {
  for (const rule of RULES) {
    if (problems.any([rule.variable, ...rule.reads])) continue;
    const problem = rule.check(settings);
    if (problem !== undefined) problems.add(rule.variable, problem);
  }
}
