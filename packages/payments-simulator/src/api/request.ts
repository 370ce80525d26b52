// Per-request helpers the API routes share: the decoded parameters (body for POST, query string
// otherwise), the trigger recorded on events, and Stripe's list envelope and pagination.
import type { FastifyRequest } from 'fastify';
import type { Trigger } from '../events.ts';
import { decodeForm, type FormObject } from '../form.ts';
import { text, whole } from '../params.ts';
import type { Page } from '../store.ts';

/** POST parameters come in the form body; GET and DELETE ones in the query string, same notation. */
export function paramsOf(request: FastifyRequest): FormObject {
  if (request.method === 'POST' && request.body !== undefined && request.body !== null)
    return request.body as FormObject;
  const at = request.url.indexOf('?');
  return at === -1 ? (Object.create(null) as FormObject) : decodeForm(request.url.slice(at + 1));
}

export function triggerOf(request: FastifyRequest): Trigger {
  const key = request.headers['idempotency-key'];
  return { requestId: request.id, idempotencyKey: typeof key === 'string' ? key : null };
}

export const PAGE_PARAMS = ['limit', 'starting_after', 'ending_before', 'expand'] as const;

export function pageOfParams(params: FormObject): Page {
  return {
    limit: whole(params, 'limit', { min: 1, max: 100 }) ?? 10,
    startingAfter: text(params, 'starting_after'),
    endingBefore: text(params, 'ending_before'),
  };
}

export interface ApiList<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

export const listOf = <T>(url: string, data: T[], hasMore: boolean): ApiList<T> => ({
  object: 'list',
  data,
  has_more: hasMore,
  url,
});
