// Development only: the forms of `/billing` (billing-account-pages.ts): sign in, start a checkout,
// open the billing portal, the same two for the organisation the token names, sign out. A post goes
// through three gates in this order, so one that is not the person's own costs nothing: a
// cross-site post is refused; the token is verified; only then the per-user limit counts it, under
// the verified subject and together with the API's count of the same operation. Whether the token's
// role may manage the organisation, the organisation's service decides, as for the API. Every post
// ends in a redirect (post-redirect-get): to the provider's page, or back to /billing, which says
// what came of it (past the limit too), so a reload never posts again.
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model/callers.ts';
import { statusOf } from '../http/error-handler.ts';
import { perUserLimit } from '../http/per-user-limit.ts';
import type { BillingAccountServices } from './billing-services.ts';
import {
  domainRefusalInWords,
  forget,
  leaveNotice,
  signIn,
  type Notice,
} from './billing-session.ts';
import { crossSite, HEADERS, page } from './page-layout.ts';

const FORM_BODY_LIMIT = 16 * 1024;

/** Form bodies parsed; a cross-site post refused before anything else, so it costs its target nothing. */
function acceptSameSiteForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.addHook('onRequest', async (request, reply) => {
    if (crossSite(request))
      return reply
        .status(403)
        .headers(HEADERS)
        .send(page('Forbidden', '<p>Cross-site form posts are refused.</p>'));
  });
}

/** What a refused post is told on /billing; null for a failure of the service itself. */
function refusalOf(error: FastifyError, reply: FastifyReply): string | null {
  if (error instanceof DomainError) return domainRefusalInWords(error);
  if (error.statusCode === 429)
    return `Too many tries this minute: try again in ${String(reply.getHeader('retry-after') ?? 60)} seconds.`;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return 'What was posted is too long to be a token.';
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500 ? `${error.message}.` : null;
}

const backToBilling = (reply: FastifyReply, notice: Notice) => {
  leaveNotice(reply, notice);
  return reply.redirect('/billing', 303);
};

/**
 * A refused post goes back to /billing, which says why (a 401 logged as the API logs it), past the
 * per-user limit too: the API's clients get its 429 and Retry-After, a person the wait in words.
 */
function explainRefusals(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const words = refusalOf(error, reply);
    if (words === null) throw error;
    if (error instanceof DomainError && statusOf(error) === 401)
      request.log.info({ reason: error.details.reason }, 'authentication refused');
    return backToBilling(reply, { kind: 'error', text: words });
  });
}

/** A form post that acts for the signed-in person and sends the browser to the provider's page. */
interface ProviderPageForm {
  path: string;
  /** The API operation whose per-user limit the form shares. */
  operation: 'checkout' | 'portal';
  /** Opens the provider's page (a checkout, the billing portal) for the person, as the form asks. */
  open: (principal: Principal, form: Record<string, string>) => Promise<{ url: string }>;
}

function redirectToProviderPage(
  app: FastifyInstance,
  services: BillingAccountServices,
  { path, operation, open }: ProviderPageForm,
): void {
  app.post(path, {
    schema: { hide: true },
    // Before the limit's preHandler: a token the verifier refuses never reaches the count.
    preValidation: async (request, reply) => {
      request.principal = await signIn(request, reply, services.verifier);
    },
    config: perUserLimit(operation, services.perUserPerMinute),
    handler: async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, string>;
      return reply.redirect((await open(request.principal, form)).url, 303);
    },
  });
}

export function billingForms(services: BillingAccountServices): FastifyPluginAsync {
  return async (app) => {
    acceptSameSiteForms(app);
    explainRefusals(app);
    const hidden = { schema: { hide: true } };
    app.post('/billing/sign-in', hidden, async (request, reply) => {
      await signIn(request, reply, services.verifier);
      return reply.redirect('/billing', 303);
    });
    redirectToProviderPage(app, services, {
      path: '/billing/portal',
      operation: 'portal',
      open: (principal) => services.portal.open(principal, {}),
    });
    redirectToProviderPage(app, services, {
      path: '/billing/checkout',
      operation: 'checkout',
      open: (principal) => services.checkout.start(principal, {}),
    });
    // A team checkout comes back to a page that waits for the organisation's tier (billing-organization.ts).
    const team = {
      success_url: `${services.appUrl}/billing/org/success`,
      cancel_url: `${services.appUrl}/billing`,
    };
    redirectToProviderPage(app, services, {
      path: '/billing/org/checkout',
      operation: 'checkout',
      open: (principal) => services.organizations.checkout(principal, team),
    });
    redirectToProviderPage(app, services, {
      path: '/billing/org/portal',
      operation: 'portal',
      open: (principal) => services.organizations.portal(principal, {}),
    });
    // A pack bought comes back to /billing, where the balance shows it once the webhook is in.
    const back = {
      success_url: `${services.appUrl}/billing`,
      cancel_url: `${services.appUrl}/billing`,
    };
    redirectToProviderPage(app, services, {
      path: '/billing/credits/checkout',
      operation: 'checkout',
      open: (principal, form) =>
        services.credits.checkout(principal, { pack: form.pack ?? '', ...back }),
    });
    app.post('/billing/sign-out', hidden, async (_request, reply) => {
      forget(reply);
      return backToBilling(reply, { kind: 'info', text: 'You are signed out.' });
    });
  };
}
