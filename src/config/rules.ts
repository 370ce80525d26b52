// What one variable cannot say alone: the schema's requiredInProduction, requiredWith and needs,
// production's refusals, and the tiers of BILLING_PRICES. A rule is skipped when a variable it
// reads already has a problem, so a mistake is told once.
import { hostOf, isLoopback, type VariableSchema } from './kinds.ts';
import { IN_MEMORY, SIMULATOR_WEBHOOK_SECRET } from './defaults.ts';
import { ENVIRONMENT, type Settings, type Variable } from './environment.ts';
import { notATier, packsProblem, pricesProblem, tierNames, trialTiersProblem } from './lists.ts';
import type { Problems } from './read.ts';

interface Rule {
  /** The variable a broken rule is reported on, and the others it reads. */
  on: Variable;
  reads: Variable[];
  /** What is wrong, or false or undefined when the rule holds. */
  check(s: Settings): string | false | undefined;
}

/** The variables the tiers for sale come from: BILLING_PRICES, or the simulator's without a key. */
export const TIER_VARIABLES: Variable[] = ['BILLING_PRICES', 'PAYMENTS_API_KEY'];

const tiers = (s: Settings) => tierNames(s.BILLING_PRICES);
const production = (s: Settings) => s.NODE_ENV === 'production';

function keywordRules([name, schema]: [string, VariableSchema]): Rule[] {
  const on = name as Variable;
  const { requiredInProduction: instead, requiredWith, needs } = schema;
  const [other, needed] = [requiredWith as Variable, needs as Variable];
  const unset = (s: Settings) => s[on] === undefined;
  const example = schema.example === undefined ? '' : ` (e.g. ${schema.example})`;
  const rules: Rule[] = [];
  if (instead)
    rules.push({
      on,
      reads: ['NODE_ENV'],
      check: (s) =>
        production(s) && unset(s) && `is required when NODE_ENV=production (${instead} is refused)`,
    });
  if (other)
    rules.push({
      on,
      reads: [other],
      check: (s) =>
        s[other] !== undefined && unset(s) && `is required when ${other} is set${example}`,
    });
  if (needed)
    rules.push({
      on,
      reads: [needed],
      check: (s) => !unset(s) && s[needed] === undefined && `needs ${needed} to be set`,
    });
  return rules;
}

/** An http:// URL to another machine (a loopback address may go unencrypted). */
function isPlainHttpOffMachine(value: string | undefined): boolean {
  if (value === undefined) return false;
  const url = new URL(value);
  return url.protocol === 'http:' && !isLoopback(hostOf(url));
}

const RULES: Rule[] = [
  ...Object.entries(ENVIRONMENT.properties as Record<Variable, VariableSchema>).flatMap(
    keywordRules,
  ),
  // The simulator's secret is published in this repository: anyone could sign events with it.
  {
    on: 'PAYMENTS_WEBHOOK_SECRET',
    reads: ['NODE_ENV'],
    check: (s) =>
      production(s) &&
      s.PAYMENTS_WEBHOOK_SECRET?.includes(SIMULATOR_WEBHOOK_SECRET) &&
      `cannot be the simulator's published ${SIMULATOR_WEBHOOK_SECRET} when NODE_ENV=production`,
  },
  {
    on: 'DATABASE_URL',
    reads: ['NODE_ENV'],
    check: (s) =>
      production(s) &&
      s.DATABASE_URL === IN_MEMORY &&
      'cannot be memory:// when NODE_ENV=production (everything would be lost on restart)',
  },
  {
    on: 'WEB_CONCURRENCY',
    reads: ['DATABASE_URL'],
    check: (s) =>
      s.WEB_CONCURRENCY > 1 &&
      s.DATABASE_URL === IN_MEMORY &&
      'above 1 needs PostgreSQL, embedded (DATABASE_URL unset) or not: PGlite in memory is single-process',
  },
  { on: 'BILLING_PRICES', reads: [], check: (s) => pricesProblem(s.BILLING_PRICES) },
  {
    on: 'BILLING_CREDIT_PACKS',
    reads: ['BILLING_PRICES'],
    check: (s) => packsProblem(s.BILLING_CREDIT_PACKS, s.BILLING_PRICES),
  },
  {
    on: 'BILLING_DEFAULT_PLAN',
    reads: TIER_VARIABLES,
    check: (s) => notATier(tiers(s), s.BILLING_DEFAULT_PLAN),
  },
  {
    on: 'BILLING_ORG_PLAN',
    reads: TIER_VARIABLES,
    check: (s) => notATier(tiers(s), s.BILLING_ORG_PLAN),
  },
  {
    on: 'BILLING_TRIAL_DAYS',
    reads: TIER_VARIABLES,
    check: (s) => trialTiersProblem(s.BILLING_TRIAL_DAYS, tiers(s)),
  },
  // The development identity provider has organisation claims of its own; a real one names its role claim beside them.
  {
    on: 'IDP_ORG_ROLE_CLAIM',
    reads: ['IDP_ORG_CLAIM', 'IDP_ISSUER'],
    check: (s) =>
      s.IDP_ORG_ROLE_CLAIM !== undefined &&
      s.IDP_ORG_CLAIM === undefined &&
      s.IDP_ISSUER !== undefined &&
      'needs IDP_ORG_CLAIM to be set',
  },
  // Without a URL, development signs its own receiver's events with it; elsewhere it would sign nothing.
  {
    on: 'APP_WEBHOOK_SECRET',
    reads: ['APP_WEBHOOK_URL', 'NODE_ENV'],
    check: (s) =>
      s.APP_WEBHOOK_SECRET !== undefined &&
      s.APP_WEBHOOK_URL === undefined &&
      s.NODE_ENV !== 'development' &&
      'needs APP_WEBHOOK_URL to be set',
  },
  // Events say who may do what: in production they travel encrypted unless they stay on this machine.
  {
    on: 'APP_WEBHOOK_URL',
    reads: ['NODE_ENV'],
    check: (s) =>
      production(s) &&
      isPlainHttpOffMachine(s.APP_WEBHOOK_URL) &&
      'must be https:// when NODE_ENV=production (http:// only for a loopback address)',
  },
];

/** Adds to `problems` each rule `settings` break. */
export function checkRules(settings: Settings, problems: Problems): void {
  for (const { on, reads, check } of RULES) {
    if (problems.any([on, ...reads])) continue;
    const problem = check(settings);
    if (problem) problems.add(on, problem);
  }
}
