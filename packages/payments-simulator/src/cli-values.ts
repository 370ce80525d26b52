// The command's option values, read from text (a flag or a SIMULATOR_* variable): each reader
// either returns the value or stops the process with one line naming the flag and what it expects.
import { WEBHOOK_PAYLOADS, type WebhookPayload } from './settings.ts';

export function fail(message: string): never {
  console.error(`payments-simulator: ${message}`);
  process.exit(2);
}

/** `name=price_id,...` as pairs; null when one is not of that form. */
function pairsOf(list: string, name: RegExp): [string, string][] | null {
  const pairs = list.split(',').map((pair) => pair.trim().split('='));
  const good = pairs.every(
    (pair) => pair.length === 2 && name.test(pair[0]!) && /^price_\w+$/.test(pair[1]!),
  );
  return good ? (pairs as [string, string][]) : null;
}

export function parsePrices(list: string): Map<string, string> {
  const pairs = pairsOf(list, /^\w+(@(month|year))?$/);
  if (pairs === null)
    fail(`--prices: expected tier=price_id or tier@year=price_id,..., got ${list}`);
  return new Map(pairs);
}

/** `pack=price_id,...`, or nothing at all (an empty list); none may reuse a plan's price id. */
export function parseOneTimePrices(
  list: string,
  plans: ReadonlyMap<string, string>,
): Map<string, string> {
  if (list.trim() === '') return new Map();
  const pairs = pairsOf(list, /^\w+$/);
  if (pairs === null) fail(`--one-time-prices: expected pack=price_id,..., got ${list}`);
  const taken = new Set(plans.values());
  const reused = pairs.find(([, id]) => taken.has(id));
  if (reused !== undefined)
    fail(`--one-time-prices: ${reused[1]} is already a recurring price in --prices`);
  return new Map(pairs);
}

export function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    fail(`--port: expected a port number, got ${text}`);
  return port;
}

export function parseWebhookUrl(text: string): string | null {
  if (text === '') return null;
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol))
    fail(`--webhook-url: expected an http(s) URL, got ${text}`);
  return text;
}

export function parsePayload(text: string): WebhookPayload {
  if (!(WEBHOOK_PAYLOADS as readonly string[]).includes(text))
    fail(`--webhook-payload: expected snapshot or thin, got ${text}`);
  return text as WebhookPayload;
}

export function parseSwitch(name: string, text: string): boolean {
  if (text !== 'true' && text !== 'false') fail(`--${name}: expected true or false, got ${text}`);
  return text === 'true';
}
