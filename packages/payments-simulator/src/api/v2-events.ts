// /v2/core/events/:id: a thin event as the SDK's `fetchEvent()` and `stripe.v2.core.events.retrieve`
// read it back (thin-events.ts), for any event the simulator emitted, whatever the endpoint's
// payload style.
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import { noSuch } from '../errors.ts';
import { presentEvent, type EventRow } from '../events.ts';
import { snapshotIdOf, thinEventOf } from '../thin-events.ts';

export function v2EventRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { id: string } }>('/core/events/:id', async (request) => {
      const snapshotId = snapshotIdOf(request.params.id);
      const [row] =
        snapshotId === null
          ? []
          : await ctx.db.query<EventRow>(
              'SELECT data, delivered_at IS NOT NULL AS delivered FROM sim_events WHERE id = $1',
              [snapshotId],
            );
      if (!row) throw noSuch('event', request.params.id);
      return thinEventOf(presentEvent(row));
    });
  };
}
