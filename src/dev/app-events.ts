// Development only: with no APP_WEBHOOK_URL, the service sends its outbound events to itself, at
// `/dev/app-events`, so the local loop shows what the application would have been told. The
// receiver checks each delivery's signature as an application would, keeps the last ones under
// DATA_DIR (app-events-log.ts: a restart keeps the list) and lists them on a page. The secret is
// generated once and kept under DATA_DIR too.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { ensureDataDir } from '../adapters/data-dir.ts';
import { verificationProblem } from '../adapters/events/standard-webhooks.ts';
import { onlyLocalHosts } from '../http/local-hosts.ts';
import { arrivalLog, type Arrival } from './app-events-log.ts';
import { escapeHtml, HEADERS, page } from './page-layout.ts';

export const APP_EVENTS_PATH = '/dev/app-events';

const readSecret = async (file: string): Promise<string | null> => {
  const text = (await readFile(file, 'utf8').catch(() => '')).trim();
  return /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(text) ? text : null;
};

/**
 * The development receiver's secret: read from DATA_DIR, or made there (0600) on first use. Made
 * by an exclusive create, so the processes of WEB_CONCURRENCY starting together share one.
 */
export async function loadOrCreateEventSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'app-events-secret');
  const stored = await readSecret(file);
  if (stored !== null) return stored;
  await ensureDataDir(dataDir);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  try {
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // Another process is writing it: a moment later it is whole.
  for (let attempt = 0; attempt < 50; attempt++) {
    const theirs = await readSecret(file);
    if (theirs !== null) return theirs;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`DATA_DIR holds an unreadable ${file}: delete it to have a new one made`);
}

const row = (a: Arrival): string => {
  let type = '?';
  try {
    type = String((JSON.parse(a.body) as { type?: unknown }).type);
  } catch {
    // shown as it came
  }
  const verdict = a.problem === null ? 'verified' : `refused: ${a.problem}`;
  return `<li><p><strong>${escapeHtml(type)}</strong> <span class="muted">${escapeHtml(a.receivedAt)} · ${escapeHtml(a.id)} · ${escapeHtml(verdict)}</span></p><pre>${escapeHtml(a.body)}</pre></li>`;
};

const listing = (arrivals: readonly Arrival[]) =>
  arrivals.length === 0
    ? '<p>Nothing yet. A checkout, a cancellation or a failed renewal sends an event here within seconds.</p>'
    : `<ol reversed>${arrivals.map(row).join('')}</ol>`;

export function appEventsReceiver(
  secrets: readonly string[],
  localNames: readonly string[],
  dataDir: string,
): FastifyPluginAsync {
  const arrivals = arrivalLog(dataDir);
  return async (app) => {
    app.addHook('onRequest', onlyLocalHosts(localNames));
    // The signature covers the exact bytes sent: the body is kept as text, never re-serialised.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    app.post(APP_EVENTS_PATH, { schema: { hide: true } }, async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : '';
      const problem = verificationProblem(secrets, request.headers, body);
      const id = request.headers['webhook-id'];
      // A retry of an event already here (same webhook-id) is acknowledged, not listed twice.
      const receivedAt = new Date().toISOString();
      await arrivals.record({ receivedAt, id: String(id ?? ''), problem, body });
      return reply.code(problem === null ? 204 : 400).send();
    });
    app.get(APP_EVENTS_PATH, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .headers(HEADERS)
        .send(
          page(
            'Events the application was sent',
            `<p class="muted">Signed outbound events (Standard Webhooks), as an application at APP_WEBHOOK_URL would receive them; newest first, refreshed every few seconds.</p>${listing(await arrivals.recent())}`,
            true,
          ),
        ),
    );
  };
}
