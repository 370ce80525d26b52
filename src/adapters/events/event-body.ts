// An outbound event's wire format, the Standard Webhooks shape: `{"type", "timestamp", "data"}`,
// minified, its times in ISO 8601 UTC (`Z`, as Standard Webhooks' examples write them); the
// exact text stored with the event, signed and sent on every attempt.
import type { EventDraft } from '../../domain/events/app-events.ts';

export const eventBody = ({ type, subject, data, at }: EventDraft): string =>
  JSON.stringify({ type, timestamp: at, data: { subject, ...data } }); // a Date's JSON is its ISO text
