// GET /v1/<path>/:id and GET /v1/<path> for objects the simulator serves read-only: retrieved with
// `expand`, listed a page at a time by the filters the resource allows, as Stripe serves them.
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import { Expander } from '../expand.ts';
import type { FormObject } from '../form.ts';
import { allowOnly, expansions } from '../params.ts';
import type { Documents, Filter, SimType } from '../store.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf } from './request.ts';

export interface ReadResource {
  path: string;
  type: SimType;
  listParams: string[];
  filter(params: FormObject, docs: Documents): Filter | Promise<Filter>;
  /** What the list keeps of the page read, when a parameter filters on what no column holds. */
  keep?(params: FormObject): (doc: object) => boolean;
}

export function readRoutes(ctx: SimContext, resources: ReadResource[]): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);
    for (const resource of resources) {
      app.get<{ Params: { id: string } }>(`/${resource.path}/:id`, async (request) => {
        const params = paramsOf(request);
        allowOnly(params, ['expand']);
        const { data } = await ctx.docs.require<object>(resource.type, request.params.id);
        return expander.expand(data, expansions(params));
      });
      app.get(`/${resource.path}`, async (request) => {
        const params = paramsOf(request);
        allowOnly(params, [...PAGE_PARAMS, ...resource.listParams]);
        const keep = resource.keep?.(params) ?? (() => true);
        const filter = await resource.filter(params, ctx.docs);
        const page = await ctx.docs.list<object>(resource.type, filter, pageOfParams(params));
        const data = page.data.map((row) => row.data).filter(keep);
        return expander.expand(
          listOf(`/v1/${resource.path}`, data, page.hasMore),
          expansions(params),
        );
      });
    }
  };
}
