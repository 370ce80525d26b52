// What each error status means, for /openapi.json and /docs (a response without a description is
// shown as "Default Response"), with the headers clients rely on. Routes pick the ones they give.
import { AUTH_RESPONSES, described } from './schemas.ts';

const RETRY_AFTER = {
  'Retry-After': { type: 'integer' as const, description: 'Seconds to wait before trying again' },
};

export const ERROR_RESPONSES = {
  400: described('ErrorDetail', 'A request the server could not read'),
  413: described('ErrorDetail', 'Request body too large'),
  415: described('ErrorDetail', 'Request body is not application/json'),
  422: described(
    'HTTPValidationError',
    'The body failed validation: one item per problem, shaped as FastAPI/Pydantic v2 shape them',
  ),
  429: described(
    'ErrorDetail',
    'Too many requests of this operation by this user in the last minute',
    RETRY_AFTER,
  ),
  500: described('ErrorDetail', 'An unexpected failure; nothing of its cause is shown'),
  502: described('ErrorDetail', 'The payment provider failed or did not answer in time'),
  503: described(
    'ErrorDetail',
    'The database is unavailable, or the payment provider is throttling our calls',
    RETRY_AFTER,
  ),
};

/** Every answer of an authenticated billing operation that takes a JSON body and calls the provider. */
export const billingResponses = (success: string, description: string, conflict: string) => ({
  200: described(success, description),
  ...AUTH_RESPONSES,
  ...ERROR_RESPONSES,
  409: described('ErrorDetail', conflict),
});
