// /v1/events: newest first, filtered by `type` (a `*` wildcard allowed, as in
// `customer.subscription.*`), `types[]`, and `delivery_success=false` (events whose delivery to the
// webhook endpoint has not succeeded yet: pending, retrying or given up).
import type { FastifyPluginAsync } from 'fastify';
import type { SqlParam } from '../sql-client.ts';
import type { SimContext } from '../context.ts';
import { noSuch } from '../errors.ts';
import { presentEvent, type EventRow } from '../events.ts';
import type { FormObject } from '../form.ts';
import { allowOnly, array, flag, hash, text, whole } from '../params.ts';
import { pageOf } from '../store.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf } from './request.ts';

const COLUMNS = 'data, delivered_at IS NOT NULL AS delivered';
const likePattern = (type: string): string =>
  type.replace(/[%_\\]/g, (c) => `\\${c}`).replace(/\*/g, '%');

/** The SQL conditions, with their values, that the list's filters make. */
function eventFilters(params: FormObject): { where: string[]; values: SqlParam[] } {
  const where: string[] = [];
  const values: SqlParam[] = [];
  const type = text(params, 'type');
  const types = (array(params, 'types') ?? []).map((entry, index) =>
    text({ entry }, 'entry', { param: `types[${index}]` })!,
  );
  if (type !== undefined) types.push(type);
  if (types.length > 0)
    where.push(`(${types.map((t) => `type LIKE $${values.push(likePattern(t))}`).join(' OR ')})`);
  const delivered = flag(params, 'delivery_success');
  if (delivered !== undefined)
    where.push(delivered ? 'delivered_at IS NOT NULL' : 'delivered_at IS NULL');
  const created = hash(params, 'created');
  const exact =
    created === undefined
      ? whole(params, 'created', { min: 0, max: Number.MAX_SAFE_INTEGER })
      : undefined;
  if (exact !== undefined) where.push(`created = $${values.push(exact)}`);
  for (const [op, sql] of [
    ['gt', '>'],
    ['gte', '>='],
    ['lt', '<'],
    ['lte', '<='],
  ] as const) {
    const bound =
      created === undefined
        ? undefined
        : whole(created, op, { min: 0, max: Number.MAX_SAFE_INTEGER }, `created[${op}]`);
    if (bound !== undefined) where.push(`created ${sql} $${values.push(bound)}`);
  }
  return { where, values };
}

export function eventRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/events', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, [...PAGE_PARAMS, 'created', 'delivery_success', 'type', 'types']);
      const { where, values } = eventFilters(params);
      const page = await pageOf<EventRow>(
        ctx.db,
        { table: 'sim_events', columns: COLUMNS, where, params: values },
        pageOfParams(params),
      );
      return listOf('/v1/events', page.rows.map(presentEvent), page.hasMore);
    });

    app.get<{ Params: { id: string } }>('/events/:id', async (request) => {
      allowOnly(paramsOf(request), ['expand']);
      const [row] = await ctx.db.query<EventRow>(
        `SELECT ${COLUMNS} FROM sim_events WHERE id = $1`,
        [request.params.id],
      );
      if (!row) throw noSuch('event', request.params.id);
      return presentEvent(row);
    });
  };
}
