// /v1/billing_portal/configurations: create, update (billing_portal.configuration.created and
// .updated, with previous_attributes), retrieve and list (by `active` and `is_default`), as the
// pinned API version has them. There is no delete: a configuration is deactivated (`active=false`).
import type { FastifyPluginAsync } from 'fastify';
import { mutate, type SimContext } from '../context.ts';
import { previousAttributes } from '../events.ts';
import { Expander } from '../expand.ts';
import { newId } from '../ids.ts';
import {
  changedConfiguration,
  checkConfiguration,
  configurationOf,
  newConfiguration,
  type Configuration,
} from '../objects/portal-configurations.ts';
import { allowOnly, expansions, flag, mergeMetadata } from '../params.ts';
import { listOf, pageOfParams, PAGE_PARAMS, paramsOf, triggerOf } from './request.ts';
import { readConfiguration } from './portal-configuration-params.ts';

const TYPE = 'billing_portal.configuration';

export function portalConfigurationRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    const expander = new Expander(ctx.docs, () => ctx.baseUrl);

    app.post('/billing_portal/configurations', async (request) => {
      const params = paramsOf(request);
      const { changes, metadata } = readConfiguration(params, true);
      const { value } = await mutate(ctx, triggerOf(request), async (unit) => {
        const configuration = newConfiguration(newId('bpc_'), changes, metadata ?? {});
        await checkConfiguration(unit.docs, configuration);
        await unit.docs.save(TYPE, configuration);
        await unit.emit('billing_portal.configuration.created', configuration);
        return configuration;
      });
      return expander.expand(value, expansions(params));
    });

    app.post<{ Params: { id: string } }>('/billing_portal/configurations/:id', async (request) => {
      const params = paramsOf(request);
      const { changes, metadata } = readConfiguration(params, false);
      const { value } = await mutate(ctx, triggerOf(request), async (unit) => {
        const before = await configurationOf(unit.docs, request.params.id, { lock: true });
        const meta = mergeMetadata(before.metadata ?? {}, metadata);
        const after = changedConfiguration(before, changes, meta);
        const previous = previousAttributes({ ...before, updated: after.updated }, after);
        if (previous === undefined) return before;
        await checkConfiguration(unit.docs, after);
        await unit.docs.save(TYPE, after);
        await unit.emit('billing_portal.configuration.updated', after, {
          ...previous,
          updated: before.updated,
        });
        return after;
      });
      return expander.expand(value, expansions(params));
    });

    app.get<{ Params: { id: string } }>('/billing_portal/configurations/:id', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, ['expand']);
      const configuration = await configurationOf(ctx.docs, request.params.id);
      return expander.expand(configuration, expansions(params));
    });

    app.get('/billing_portal/configurations', async (request) => {
      const params = paramsOf(request);
      allowOnly(params, [...PAGE_PARAMS, 'active', 'is_default']);
      const active = flag(params, 'active');
      const isDefault = flag(params, 'is_default');
      const page = await ctx.docs.list<Configuration>(
        TYPE,
        {
          status: active === undefined ? undefined : [active ? 'active' : 'inactive'],
          ref: isDefault === undefined ? undefined : isDefault ? 'default' : 'other',
        },
        pageOfParams(params),
      );
      const data = page.data.map((row) => row.data);
      return expander.expand(
        listOf('/v1/billing_portal/configurations', data, page.hasMore),
        expansions(params),
      );
    });
  };
}
