// What each error status means, for /openapi.json and /docs (a response without a description is
// shown as "Default Response"), with the headers clients rely on. Routes pick the ones they give.
import { described } from './schemas.ts';

const RETRY_AFTER = { 'Retry-After': { type: 'integer' as const, description: 'Seconds to wait before trying again' } };

export const ERROR_RESPONSES = {
  400: described('ErrorDetail', 'A request the server could not read'),
  409: described('ErrorDetail', 'The user already has an active, trialing or past_due subscription'),
  413: described('ErrorDetail', 'Request body too large'),
  415: described('ErrorDetail', 'Request body is not application/json'),
  422: described('HTTPValidationError', 'The body failed validation: one item per problem, shaped as FastAPI/Pydantic v2 shape them'),
  429: described('ErrorDetail', 'Too many checkouts by this user in the last minute', RETRY_AFTER),
  500: described('ErrorDetail', 'An unexpected failure; nothing of its cause is shown'),
  502: described('ErrorDetail', 'The payment provider failed or did not answer in time'),
  503: described('ErrorDetail', 'The database is unavailable', RETRY_AFTER),
};
