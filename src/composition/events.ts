// Outbound events, when there is somewhere to send them: the sender, and in development without
// APP_WEBHOOK_URL the service's own receiver (its address known once the service listens) with a
// secret kept under DATA_DIR.
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.ts';
import { createHttpSender } from '../adapters/events/http-sender.ts';
import type { EventSender } from '../domain/ports/event-sender.ts';
import { APP_EVENTS_PATH, appEventsReceiver, loadOrCreateEventSecret } from '../dev/app-events.ts';

export interface AppEvents {
  sender: EventSender;
  /** The development receiver's routes; null when events go to the application. */
  receiver: FastifyPluginAsync | null;
  /** Where the service listens: the development receiver's address follows it. */
  setServiceUrl(url: string): void;
}

/** Null when no destination is configured: no event is recorded. */
export async function composeAppEvents(config: Config): Promise<AppEvents | null> {
  const target = config.appEvents;
  if (target.kind === 'off') return null;
  const secrets = target.secrets ?? [await loadOrCreateEventSecret(config.dataDir)];
  let url = target.kind === 'application' ? target.url : null;
  const development = target.kind === 'development';
  return {
    sender: createHttpSender({ url: () => url, secrets: () => secrets }),
    receiver: development ? appEventsReceiver(secrets, config.localNames, config.dataDir) : null,
    setServiceUrl(serviceUrl) {
      if (development) url = `${serviceUrl}${APP_EVENTS_PATH}`;
    },
  };
}
