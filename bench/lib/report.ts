// The results: one table on stdout, the targets checked against it, and the
// same as JSON in bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeCalls, EVENT_LIST, SUBSCRIPTION_READ } from './provider-calls.ts';
import type { Measurement } from './scenarios.ts';

export interface Row {
  scenario: string;
  server: string;
  m: Measurement;
  /** The row this one is compared with (the baseline's, or the one-process service's). */
  against?: Row;
}

export interface Target {
  name: string;
  met: boolean | null;
  detail: string;
}

/** The replay's row: the service's command, not its server. */
export const REPLAY_SERVER = 'service CLI';

/** Before the scenario's name in the rows of S1-S3 against the floor (floor.ts). */
export const FLOOR_LABEL = 'floor ';
/** The service with outbound events on (APP_WEBHOOK_URL at a receiver in the bench). */
export const EVENTS_SERVER = 'service events';

/** The service's rate against the server it is compared with: at least `min` times, with no failed check. */
const RATE_TARGETS: Record<string, { min: number; checks: string }> = {
  S1: { min: 1.0, checks: 'zero non-2xx' },
  S2: { min: 1.2, checks: 'nothing lost or doubled' },
  S2b: { min: 0.8, checks: 'no late event changed a state' },
  S3: { min: 1.2, checks: 'nothing doubled' },
};

const ratio = (a: number, b: number) => (b > 0 ? a / b : NaN);
const fixed = (value: number | undefined, digits = 1) =>
  value === undefined || Number.isNaN(value) ? '' : value.toFixed(digits);

export function comparison(row: Row): string {
  const base = row.against;
  if (base === undefined) return '';
  if (row.m.wallMs !== undefined && base.m.wallMs !== undefined)
    return `wall ${fixed(ratio(row.m.wallMs, base.m.wallMs), 2)}x`;
  return `${fixed(ratio(row.m.rps, base.m.rps), 2)}x req/s, ${fixed(ratio(row.m.p99, base.m.p99), 2)}x p99`;
}

/**
 * CPU seconds per 1,000 requests (or events), the server's processes and PostgreSQL's: what a
 * request costs whatever the machine, for projecting capacity on paper (docs/benchmarks.md).
 */
export function cpuPerThousand(m: Measurement): { server: number; postgres: number } {
  const per = (cores: number) => (m.requests > 0 ? (cores * m.durationS * 1000) / m.requests : NaN);
  return { server: per(m.cpu.server), postgres: per(m.cpu.postgres) };
}

/** Writes to PostgreSQL per request, about its round trips (database-writes.ts); NaN where not counted. */
export function databaseWritesPerRequest(m: Measurement): number {
  return m.databaseWrites !== undefined && m.requests > 0 ? m.databaseWrites / m.requests : NaN;
}

export function table(rows: Row[]): string {
  const header = [
    'scenario',
    'server',
    'load',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'RSS MB start/peak',
    'wall ms',
    'vs',
    'CPU srv/pg/load',
    'CPU s/1k srv/pg',
    'PG writes/req',
    'provider calls',
    'checks',
  ];
  const body = rows.map((row) => [
    row.scenario,
    row.server,
    row.m.generator ?? 'node',
    fixed(row.m.rps, 0),
    fixed(row.m.p50, 1),
    fixed(row.m.p99, 1),
    String(row.m.non2xx),
    `${fixed(row.m.rssStartMb, 0)}/${fixed(row.m.rssMb, 0)}`,
    fixed(row.m.wallMs, 0),
    row.against ? `${comparison(row)} (vs ${row.against.server})` : '',
    `${fixed(row.m.cpu.server, 2)}/${fixed(row.m.cpu.postgres, 2)}/${fixed(row.m.cpu.load, 2)}`,
    `${fixed(cpuPerThousand(row.m).server, 2)}/${fixed(cpuPerThousand(row.m).postgres, 2)}`,
    fixed(databaseWritesPerRequest(row.m), 2),
    describeCalls(row.m.calls),
    row.m.problems.length === 0 ? 'ok' : row.m.problems.join('; '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}

export function checkTargets(rows: Row[]): Target[] {
  const find = (scenario: string, server: string) =>
    rows.find((r) => r.scenario.startsWith(`${scenario} `) && r.server === server);
  const targets: Target[] = [];
  const add = (
    name: string,
    row: Row | undefined,
    test: (row: Row) => boolean,
    detail: (row: Row) => string,
  ) =>
    targets.push(
      row === undefined
        ? { name, met: null, detail: 'not measured' }
        : { name, met: test(row), detail: detail(row) },
    );
  const rpsRatio = (row: Row) => ratio(row.m.rps, row.against!.m.rps);
  const p99Ratio = (row: Row) => ratio(row.m.p99, row.against!.m.p99);
  const withNotes = (r: Row) => [comparison(r), ...r.m.notes].join('; ');
  const reads = (r: Row) => r.m.calls[SUBSCRIPTION_READ] ?? 0;

  /** The rate targets of `scenarios` and their p99, for the rows named `label` + scenario. */
  const rateTargets = (label: string, against: string, scenarios: string[]) => {
    for (const scenario of scenarios) {
      const { min, checks } = RATE_TARGETS[scenario]!;
      add(
        `${scenario} >= ${min.toFixed(1)}x ${against} req/s, ${checks}`,
        find(`${label}${scenario}`, 'service'),
        (r) => rpsRatio(r) >= min && r.m.problems.length === 0,
        withNotes,
      );
    }
    const compared = scenarios.flatMap((scenario) => {
      const row = find(`${label}${scenario}`, 'service');
      return row === undefined ? [] : [{ scenario, row }];
    });
    if (compared.length > 0) {
      targets.push({
        name: `p99 <= 1.5x ${against} (${scenarios.join(', ')})`,
        met: compared.every(({ row }) => p99Ratio(row) <= 1.5),
        detail: compared
          .map(({ scenario, row }) => `${scenario} ${fixed(p99Ratio(row), 2)}x`)
          .join(', '),
      });
    }
  };
  rateTargets('', 'baseline', ['S1', 'S2', 'S2b', 'S3']);
  if (rows.some((r) => r.scenario.startsWith(FLOOR_LABEL))) {
    rateTargets(FLOOR_LABEL, 'floor', ['S1', 'S2', 'S3']);
    add(
      'S2 with APP_WEBHOOK_URL set >= 1.0x floor req/s, nothing lost or doubled',
      find(`${FLOOR_LABEL}S2`, EVENTS_SERVER),
      (r) => rpsRatio(r) >= 1.0 && r.m.problems.length === 0,
      withNotes,
    );
  }
  add(
    'credits: every spend answered 200 and recorded once, no provider call',
    find(`${FLOOR_LABEL}credits`, 'service') ?? find('credits', 'service'),
    (r) => r.m.problems.length === 0,
    (r) =>
      `${fixed(r.m.rps, 0)} spends/s, p99 ${fixed(r.m.p99, 1)} ms` +
      (r.against ? `; ${comparison(r)} against the ${r.against.server}'s S1` : ''),
  );
  add(
    'S4 one row per user, zero errors, wall <= 1.5x baseline',
    find('S4', 'service'),
    (r) => ratio(r.m.wallMs!, r.against!.m.wallMs!) <= 1.5 && r.m.problems.length === 0,
    comparison,
  );
  add(
    'events: every outbound event arrived exactly once (by webhook-id), verified',
    find('events outbox', EVENTS_SERVER),
    (r) => r.m.problems.length === 0,
    (r) =>
      `${fixed(r.m.rps, 0)} events/s, transaction to arrival p50 ${fixed(r.m.p50, 0)} ms, p99 ${fixed(r.m.p99, 0)} ms; ${r.m.notes.join('; ')}`,
  );
  add(
    'events: S2 with APP_WEBHOOK_URL set against unset (the cost, reported), nothing lost',
    find('events S2', EVENTS_SERVER),
    (r) => r.m.problems.length === 0,
    (r) => {
      const cpu = cpuPerThousand(r.m);
      const base = cpuPerThousand(r.against!.m);
      return `${fixed(rpsRatio(r), 2)}x req/s, CPU s/1k ${fixed(ratio(cpu.server, base.server), 2)}x server, ${fixed(ratio(cpu.postgres, base.postgres), 2)}x PostgreSQL, PG writes/req ${fixed(databaseWritesPerRequest(r.against!.m), 2)} -> ${fixed(databaseWritesPerRequest(r.m), 2)}; ${r.m.notes.join('; ')}`;
    },
  );
  // PGlite is a WebAssembly PostgreSQL inside the process (hundreds of MB by design): reported, not
  // held to the target; nor is the replay command, which is not the serving process.
  const serviceRows = rows.filter(
    (r) =>
      r.server.startsWith('service') && !r.server.includes('PGlite') && r.server !== REPLAY_SERVER,
  );
  if (serviceRows.length > 0) {
    const worst = serviceRows.reduce((a, b) => (b.m.rssMb > a.m.rssMb ? b : a));
    targets.push({
      name: 'peak RSS <= 110 MB per process (service on PostgreSQL)',
      met: worst.m.rssMb <= 110,
      detail: `highest ${fixed(worst.m.rssMb, 0)} MB in ${worst.scenario} / ${worst.server}`,
    });
  }
  add(
    'S2b provider reads <= distinct subscriptions',
    find('S2b', 'service'),
    (r) => reads(r) <= r.m.subscriptions!,
    (r) => `${reads(r)} reads for ${r.m.subscriptions} subscriptions (${describeCalls(r.m.calls)})`,
  );
  add(
    'replay: reads <= subscriptions (plus the list calls), every event processed',
    find('replay', REPLAY_SERVER),
    (r) => reads(r) <= r.m.subscriptions! && r.m.problems.length === 0,
    (r) =>
      `${reads(r)} reads for ${r.m.subscriptions} subscriptions, ${r.m.calls[EVENT_LIST] ?? 0} list calls; ${r.m.requests} events in ${fixed(r.m.wallMs! / 1000, 1)} s, peak RSS ${fixed(r.m.rssMb, 0)} MB`,
  );
  for (const which of ['all new to the service', 'a tenth drifted'])
    add(
      `reconcile (${which}): list calls only, about 10 per 1,000 subscriptions, every one in the provider's state`,
      rows.find((r) => r.scenario.startsWith('reconcile ') && r.scenario.endsWith(which)),
      (r) => r.m.problems.length === 0,
      (r) => `${r.m.notes.join('; ')}; ${fixed(r.m.wallMs! / 1000, 1)} s`,
    );
  add(
    'ledger: retention deletes in small batches and the table stays bounded',
    find('ledger', 'PostgreSQL'),
    (r) => r.m.problems.length === 0,
    (r) => r.m.notes.join('; '),
  );
  add(
    'embedded default: peak RSS <= 250 MB (the serving process, start-up and S1)',
    find('S1', 'service embedded'),
    (r) => r.m.rssMb <= 250,
    (r) => r.m.notes.join('; '),
  );
  add(
    'embedded default: S1 >= 0.8x the service on PostgreSQL',
    find('S1', 'service embedded'),
    (r) => rpsRatio(r) >= 0.8,
    comparison,
  );
  add(
    'WEB_CONCURRENCY=2: S1 >= 1.6x one process',
    find('S1', 'service x2'),
    (r) => rpsRatio(r) >= 1.6,
    (r) => `${fixed(rpsRatio(r), 2)}x req/s`,
  );
  return targets;
}

export function writeJson(dir: string, data: unknown): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
