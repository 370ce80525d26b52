// The pages' shared frame: an escaping html`` template, one inline stylesheet, no external assets,
// and the security headers (a CSP that allows inline styles and forms to this origin plus the
// merchant's return URLs, no framing, no sniffing, no referrer to other sites).
import type { FastifyReply, FastifyRequest } from 'fastify';

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

type Part = Html | string | number | null | undefined | false | Part[];
const render = (part: Part): string =>
  part instanceof Html
    ? part.text
    : Array.isArray(part)
      ? part.map(render).join('')
      : part === null || part === undefined || part === false
        ? ''
        : escapeHtml(String(part));

/** html`<p>${value}</p>`: interpolated values are escaped unless they are Html themselves. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  return new Html(
    strings.reduce(
      (out, text, i) => out + text + (i < values.length ? render(values[i]!) : ''),
      '',
    ),
  );
}

export const money = (amount: number | null, currency: string | null): string =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: (currency ?? 'usd').toUpperCase(),
  }).format((amount ?? 0) / 100);

export const dateOf = (seconds: number | null): string =>
  seconds === null
    ? '—'
    : new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1f36;background:#f6f8fa}
main{max-width:960px;margin:0 auto;padding:32px 20px}h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}
.muted{color:#697386}.small{font-size:13px}.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:#e3e8ee;color:#3c4257}
.test{background:#ffde92;color:#7a4f01}.active,.complete,.delivered,.paid{background:#d7f7c2;color:#05690d}.past_due,.pending{background:#fcedb9;color:#a04100}
.canceled,.expired,.failed{background:#ffe7f2;color:#b3093c}.card{background:#fff;border:1px solid #e3e8ee;border-radius:8px;padding:24px;box-shadow:0 2px 5px rgba(60,66,87,.08)}
.checkout{display:grid;grid-template-columns:1fr 1fr;gap:32px;max-width:880px;margin:40px auto}@media(max-width:720px){.checkout{grid-template-columns:1fr}}
.price{font-size:36px;font-weight:700}.field{border:1px solid #e3e8ee;border-radius:6px;padding:10px 12px;margin:6px 0 14px;background:#fafbfc}
input[type=email],input[type=text]{width:100%;font:inherit;border:1px solid #cfd7df;border-radius:6px;padding:10px 12px;margin:6px 0 14px}
button{font:inherit;cursor:pointer;border-radius:6px;border:1px solid #cfd7df;background:#fff;padding:6px 12px}button.primary{width:100%;background:#635bff;border-color:#635bff;color:#fff;font-weight:600;padding:12px}
button.link{border:0;background:none;color:#635bff;padding:0}td button{font-size:12px;padding:3px 8px;margin:2px 0}button.danger{color:#b3093c}form.inline{display:inline}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e3e8ee;border-radius:8px}th,td{text-align:left;padding:8px 10px;border-bottom:1px solid #eef1f4;font-size:13px;vertical-align:top}
table.invoice-lines{margin-top:6px;border:0}table.invoice-lines td{padding:2px 6px;font-size:12px}table.invoice-lines td.amount{text-align:right;white-space:nowrap}table.invoice-lines .subtotal td{border-top:1px solid #e3e8ee}table.invoice-lines .total td{font-weight:600;color:#1a1f36}
th{color:#697386;font-weight:600}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}.notice{background:#e8f0fe;border:1px solid #c3d5fb;border-radius:6px;padding:10px 14px;margin:16px 0}`;

function renderPage(title: string, body: Html): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body.text}</body></html>`;
}

export interface Page {
  title: string;
  body: Html;
  /** URLs a form on the page may end up at (redirects), allowed by its CSP's form-action. */
  formTargets?: (string | null)[];
}

/** Sends a page with the security headers. */
export function sendPage(
  reply: FastifyReply,
  status: number,
  { title, body, formTargets = [] }: Page,
): FastifyReply {
  const origins = [...new Set(formTargets.flatMap((url) => (url ? [new URL(url).origin] : [])))];
  reply.header(
    'content-security-policy',
    `default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'${origins.map((o) => ` ${o}`).join('')}; base-uri 'none'; frame-ancestors 'none'`,
  );
  reply
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store');
  return reply.status(status).type('text/html; charset=utf-8').send(renderPage(title, body));
}

/**
 * A form post from another site (CSRF). Browsers say so in Sec-Fetch-Site; without it (an older
 * browser), an Origin naming another host, or `Origin: null` (a sandboxed frame, say): our pages
 * send `Referrer-Policy: same-origin`, so their own posts carry our origin.
 */
function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false; // not a browser
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

/** A preHandler hook for a plugin of pages: a cross-site form post gets a 403 page, nothing else. */
export async function refuseCrossSitePosts(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  if (request.method !== 'POST' || !crossSite(request)) return undefined;
  return sendPage(reply, 403, {
    title: 'Forbidden',
    body: html`<main><p>Cross-site form posts are refused.</p></main>`,
  });
}

export const header = (subtitle: string): Html =>
  html`<h1>Payments Simulator <span class="badge test">TEST MODE</span></h1><p class="muted">${subtitle}</p>`;
