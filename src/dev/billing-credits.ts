// Development only: the credits part of `/billing` (billing-account-pages.ts): the balance of the
// caller's subject (their organisation's when the token names one), its grant and purchased
// credits, a button per pack (the same checkout as POST /api/v1/credits/checkout, back to
// /billing), and the newest ledger entries, as GET /api/v1/credits and /credits/ledger say them.
import type { CreditsService, CreditsSummary } from '../domain/credits/credits-service.ts';
import type { Principal } from '../domain/model/callers.ts';
import type { CreditEntry } from '../domain/ports/credits.ts';
import { escapeHtml } from './page-layout.ts';

const LEDGER_ROWS = 10;

const money = ({ amount, currency }: { amount: number; currency: string }) =>
  `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;

/** One button per pack, its price once the provider said it. */
const packButtons = ({ packs }: CreditsSummary) =>
  packs
    .map(
      ({ name, credits, price }) =>
        `<form method="post" action="/billing/credits/checkout"><input type="hidden" name="pack" value="${escapeHtml(name)}"><button type="submit" id="buy-${escapeHtml(name)}">Buy ${credits} credits${price === null ? '' : ` for ${money(price)}`}</button></form>`,
    )
    .join('');

const entryRow = ({ at, kind, amount, balanceAfter, reason }: CreditEntry) =>
  `<tr><td>${at.toISOString().slice(0, 19).replace('T', ' ')}</td><td>${kind}</td><td>${amount > 0 ? '+' : ''}${amount}</td><td>${balanceAfter}</td><td>${escapeHtml(reason ?? '')}</td></tr>`;

function ledgerHtml(entries: CreditEntry[]): string {
  if (entries.length === 0) return '<p class="muted">No entries yet.</p>';
  return `<table id="credit-ledger"><tr><th>When (UTC)</th><th>Entry</th><th>Credits</th><th>Balance</th><th>Why</th></tr>${entries.map(entryRow).join('')}</table>`;
}

export async function creditsSection(credits: CreditsService, principal: Principal) {
  const summary = await credits.summary(principal);
  const { entries } = await credits.ledger(principal, { limit: LEDGER_ROWS, before: null });
  const whose =
    summary.subject.type === 'organization' ? "Your organisation's credits" : 'Your credits';
  const grant =
    summary.grant === null
      ? 'none'
      : `${summary.grant.remaining} of ${summary.grant.amount}, until ${summary.grant.expiresAt.toISOString().slice(0, 10)}`;
  return `<h2>${whose}</h2>
<dl class="account"><dt>Balance</dt><dd id="credit-balance">${summary.balance}</dd>
<dt>Grant</dt><dd id="credit-grant">${escapeHtml(grant)}</dd>
<dt>Purchased</dt><dd id="credit-purchased">${summary.purchased}</dd></dl>
<div class="actions">${packButtons(summary)}</div>
<p class="muted">The application's backend spends them: <code>npm run token -- --service</code>, then <code>POST /api/v1/credits/spend</code>.</p>
${ledgerHtml(entries)}`;
}
