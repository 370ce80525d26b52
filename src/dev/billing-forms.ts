// Development only: the forms of `/billing` (billing-account-pages.ts), which start a checkout or
// open the billing portal for the person signed in, through the same services as the API. A post
// goes through three gates in this order, so one that is not the person's own costs nothing: a
// cross-site post is refused; the token is verified; only then the per-user limit counts it, under
// the verified subject and together with the API's count of the same operation.
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { Principal } from '../domain/model.ts';
import { statusOf } from '../http/error-handler.ts';
import { perUserLimit } from '../http/per-user-limit.ts';
import type { BillingAccountServices } from './billing-account-pages.ts';
import { forget, refusalInWords, signIn } from './billing-session.ts';
import {
  crossSite,
  escapeHtml,
  HEADERS,
  page,
  PORTAL_BUTTON,
  SIGN_IN,
  START_CHECKOUT,
} from './page-layout.ts';

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

export interface Refusal {
  status: number;
  words: string;
  /** What the person can do next: a form. */
  next: string;
}

/** Why the domain refused, in words, and what the person can do next. */
export function domainRefusal(error: DomainError): Refusal {
  const status = statusOf(error);
  if (status === 401) return { status, words: refusalInWords(error), next: SIGN_IN };
  const next =
    error.code === 'nothing_to_manage'
      ? START_CHECKOUT
      : error.code === 'subscription_active'
        ? PORTAL_BUTTON
        : '';
  return { status, words: `${error.message}.`, next };
}

/** A refusal in words, or null for a failure of the service itself (left to the app's handler). */
function refusalOf(error: FastifyError, reply: FastifyReply): Refusal | null {
  if (error instanceof DomainError) return domainRefusal(error);
  if (error.statusCode === 429)
    return {
      status: 429,
      words: `Too many tries this minute: try again in ${String(reply.getHeader('retry-after') ?? 60)} seconds.`,
      next: '',
    };
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return { status: 413, words: 'What was posted is too long to be a token.', next: SIGN_IN };
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500 ? { status, words: error.message, next: SIGN_IN } : null;
}

/** A refused post answers a page saying why and what next; the token it carried is not shown back. */
function explainRefusals(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const refusal = refusalOf(error, reply);
    if (refusal === null) throw error;
    // As the API logs its 401s: why, for whoever sets up an identity provider; never the token.
    if (refusal.status === 401)
      request.log.info({ reason: (error as DomainError).details.reason }, 'authentication refused');
    return refusalPage(reply, refusal);
  });
}

export const refusalPage = (reply: FastifyReply, { status, words, next }: Refusal) =>
  reply
    .status(status)
    .headers(HEADERS)
    .send(page('Billing', `<p class="error">${escapeHtml(words)}</p>${next}`));

/** A form post that acts for the signed-in person and sends the browser to the provider's page. */
interface ProviderPageForm {
  path: string;
  /** The API operation whose per-user limit the form shares. */
  operation: 'checkout' | 'portal';
  /** Opens the provider's page (a checkout, the billing portal) for the person. */
  open: (principal: Principal) => Promise<{ url: string }>;
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
    handler: async (request, reply) => reply.redirect((await open(request.principal)).url, 303),
  });
}

export function billingForms(services: BillingAccountServices): FastifyPluginAsync {
  return async (app) => {
    acceptSameSiteForms(app);
    explainRefusals(app);
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
    app.post('/billing/sign-out', { schema: { hide: true } }, async (_request, reply) => {
      forget(reply);
      return reply.redirect('/billing', 303);
    });
  };
}
