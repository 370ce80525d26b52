// The few lines a person reads when `npm start` is up in development: what to open, and how to
// get a token. The JSON log goes on beside it (stdout); this goes to stderr, so `npm start | jq`
// still reads only log lines.
export interface BannerFacts {
  /** The API's base URL, reachable from this machine. */
  url: string;
  simulatorUrl: string | null;
  devIdentity: boolean;
  database: string;
}

export function banner({ url, simulatorUrl, devIdentity, database }: BannerFacts): string {
  const rows: [string, string][] = [['Start here', `${url}/`]];
  if (simulatorUrl !== null)
    rows.push(['Your billing', `${url}/billing`], ['Stripe simulator', `${simulatorUrl}/`]);
  rows.push(['API docs', `${url}/docs`]);
  if (devIdentity)
    rows.push(
      ['Get a token', 'npm run token  (for the user dev-user)'],
      ['Another user', 'npm run token -- --sub alice --email alice@example.com'],
      ['A team admin', 'npm run token -- --sub alice --org acme --role admin'],
    );
  rows.push(['Database', database]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    '',
    `  The billing service is running at ${url}`,
    ...rows.map(([label, value]) => `    ${label.padEnd(width)}  ${value}`),
    '  Stop it with Ctrl-C.',
    '',
  ].join('\n');
}
