// The frame of the service's development pages: one escaping helper, one small stylesheet, the
// links every page ends with, the buttons and the sign-in form they share, the security headers,
// and the check that a form post comes from these pages themselves.
import type { FastifyRequest } from 'fastify';
import { FREE_TIER } from '../domain/billing/tier.ts';

export const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const LINKS = `<p class="links"><a href="/billing">Manage your subscription</a> · <a href="/billing/dashboard">Payments simulator dashboard</a> · <a href="/docs">API docs</a></p>`;

export function page(title: string, body: string, refresh = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
${refresh ? '<meta http-equiv="refresh" content="2">' : ''}
<style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}${LINKS}</body></html>`;
}

// The free tier in a neutral grey, the paid ones in green; a notice says what a form post came to;
// a long line of code (an event's JSON on /dev/app-events) wraps rather than widening the page.
const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1f2933}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}.tier{font-weight:600;color:#0b6e4f}.tier.free{color:#52606d}
.links{margin-top:2rem;font-size:.9rem}.error,.info{padding:.5rem .75rem;border-radius:4px}
.error{color:#8a1c1c;background:#fdecec}.info{background:#eef2f6}.muted{color:#52606d;font-size:.9rem}
dl.account{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dl.account dt{color:#52606d}dl.account dd{margin:0}dl.account dd p{margin:0 0 .4rem}
.actions{display:flex;gap:.5rem;margin:1.2rem 0}.actions form{margin:0}
input{width:100%;box-sizing:border-box;font:inherit;padding:.4rem;margin:.3rem 0 .8rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f7fa;padding:.5rem;font-size:.8rem}`;

/** Lines of text, each a paragraph. */
export const paragraphs = (lines: readonly string[]): string =>
  lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('');

/** A tier's name, styled as paid or free. */
export const tierHtml = (tier: string, id = ''): string =>
  `<span class="tier${tier === FREE_TIER ? ' free' : ''}"${id ? ` id="${id}"` : ''}>${escapeHtml(tier)}</span>`;

const postButton = (path: string, label: string) =>
  `<form method="post" action="${path}"><button type="submit">${label}</button></form>`;

// Each acts for the person signed in on /billing (billing-forms.ts), who is asked to sign in first otherwise.
export const START_CHECKOUT = postButton('/billing/checkout', 'Start a checkout');
export const PORTAL_BUTTON = postButton('/billing/portal', 'Open the billing portal');
export const SIGN_OUT = postButton('/billing/sign-out', 'Sign out');
// The same for the organisation the token names, shown to a manager only (billing-organization.ts).
export const TEAM_CHECKOUT = postButton('/billing/org/checkout', 'Start a team checkout');
export const TEAM_PORTAL = postButton('/billing/org/portal', "Open the team's billing portal");

export const SIGN_IN = `<p>Sign in with a development token to see your account, start a checkout or manage your subscription.</p>
<form method="post" action="/billing/sign-in"><label for="token">Your access token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<div class="actions"><button type="submit">Show my account</button>
<button type="submit" formaction="/billing/checkout">Start a checkout</button>
<button type="submit" formaction="/billing/portal">Open the billing portal</button></div></form>
<p><small>Development only: get a token with <code>npm run token</code> (for the user dev-user), or
<code>npm run token -- --sub alice --email alice@example.com</code>, or as a member of an organisation
<code>npm run token -- --sub alice --org acme --role admin</code>; it is made for this service,
whatever its port. This browser keeps it until it closes.
A front end calls <code>GET /api/v1/billing/subscription</code>, <code>POST /api/v1/billing/checkout</code>
and <code>/portal</code> with the user's token instead.</small></p>`;

export const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Same-origin form posts then carry our Origin, so a post with `Origin: null` can be refused (crossSite).
  'referrer-policy': 'same-origin',
};

/**
 * A form post from another site (CSRF). Browsers say so in Sec-Fetch-Site; without it (an older
 * browser), an Origin naming another host, or `Origin: null` (a sandboxed frame, say), since our
 * own pages' posts carry our origin. A client sending neither header is not a browser.
 */
export function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true; // "null", or not a URL
  }
}
