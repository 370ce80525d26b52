// Development only: `/`, the first address a person opens. It says what the embedded defaults are
// and links what there is to open, in the order a first visit goes.
import type { FastifyPluginAsync } from 'fastify';
import { HEADERS, page } from './page-layout.ts';

const START = `<p>This is the billing service on its development defaults: an embedded database, a
development identity provider and a payment simulator standing in for Stripe. No account anywhere.</p>
<ol>
<li>Get a token in a terminal: <code>npm run token</code> (for the user dev-user), or
<code>npm run token -- --sub alice --email alice@example.com</code>.</li>
<li>Open <a href="/billing">your billing</a>, paste it to see your account, and start a checkout. The simulator's page takes
a test card; paying sends signed webhooks here, and your tier changes.</li>
<li>Come back to <a href="/billing">your billing</a> to open the billing portal: switch plan, cancel, resume.</li>
<li>The <a href="/billing/dashboard">payment simulator's dashboard</a> shows every event and what the
service answered, and renews, fails a renewal or ends a period.</li>
</ol>
<p>The API: <a href="/docs">its documentation</a> (<a href="/openapi.json">OpenAPI</a>), with
<code>curl</code> and the same token as a bearer token.</p>`;

export function startPage(): FastifyPluginAsync {
  return async (app) => {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.headers(HEADERS).send(page('Billing service (development)', START)),
    );
  };
}
