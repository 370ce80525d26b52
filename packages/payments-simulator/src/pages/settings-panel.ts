// The dashboard's switches (settings.ts): the webhook endpoint's payload style (snapshot events or
// thin notifications) and whether a failed renewal pauses the subscription. Each is a button that
// flips it; the change lasts until the simulator restarts.
import type { FastifyPluginAsync } from 'fastify';
import type { SimContext } from '../context.ts';
import type { FormObject } from '../form.ts';
import { changeSettings, type SimSettings } from '../settings.ts';
import { html, type Html } from './layout.ts';
import { noticeOf } from './notices.ts';

const flip = (name: string, value: string, label: string): Html =>
  html`<form class="inline" method="post" action="/dashboard/settings"><input type="hidden" name="${name}" value="${value}"><button type="submit">${label}</button></form>`;

export function settingsSection(settings: SimSettings): Html {
  const thin = settings.webhookPayload === 'thin';
  const pauses = settings.pauseOnPaymentFailure;
  return html`<h2>Settings</h2>
    <table><tr><th>Setting</th><th>Now</th><th></th></tr>
    <tr data-setting="webhook_payload"><td>Webhook payload</td><td>${thin ? 'thin: v2 notifications (v1.* types, related_object, no snapshot)' : 'snapshot: v1 events with the object'}</td>
      <td>${flip('webhook_payload', thin ? 'snapshot' : 'thin', thin ? 'Send snapshot events' : 'Send thin events')}</td></tr>
    <tr data-setting="pause_on_payment_failure"><td>When a renewal payment fails</td><td>${pauses ? 'pause the subscription' : 'leave it past due'}</td>
      <td>${flip('pause_on_payment_failure', pauses ? 'false' : 'true', pauses ? 'Leave it past due' : 'Pause it')}</td></tr></table>`;
}

/** Its route, registered by the dashboard's plugin (whose hook refuses cross-site posts). */
export function settingsRoutes(ctx: SimContext): FastifyPluginAsync {
  return async (app) => {
    app.post('/dashboard/settings', async (request, reply) => {
      const notice = await noticeOf(async () => {
        changeSettings(ctx.settings, (request.body ?? {}) as FormObject);
        return `Webhooks now carry ${ctx.settings.webhookPayload === 'thin' ? 'thin events' : 'snapshot events'}; a failed renewal ${ctx.settings.pauseOnPaymentFailure ? 'pauses the subscription' : 'leaves it past due'}.`;
      });
      return reply.redirect(`/?notice=${ctx.notices.post(notice)}`, 303);
    });
  };
}
