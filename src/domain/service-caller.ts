// Who may call a backend's operations (seat reports): a token with the service scope, issued to one
// of the clients BILLING_SERVICE_CLIENTS lists, and carrying nothing a person's token or another
// kind of token carries. A scope alone never makes a backend: some identity providers grant an
// API's scopes to any user who asks (an Auth0 API without RBAC, Keycloak's optional client scopes).
import { DomainError } from './errors.ts';
import type { ServiceCaller } from './model/callers.ts';

export interface ServiceAccess {
  scope: string;
  /** The clients whose tokens are the application's backend; none: no backend is. */
  clients: readonly string[];
}

/** Throws the 403 that says why `caller` is not the application's backend; returns if it is. */
export function checkServiceCaller(
  caller: ServiceCaller,
  access: ServiceAccess,
  operation: string,
) {
  const refuse = (message: string, reason: string) => {
    throw new DomainError('service_caller_refused', message, { reason });
  };
  if (!caller.scopes.has(access.scope))
    refuse(
      `${operation} needs a service token with the scope ${access.scope}; an end user's token cannot`,
      `no scope ${access.scope}`,
    );
  if (access.clients.length === 0)
    refuse(
      `${operation} is allowed to no client: BILLING_SERVICE_CLIENTS lists none`,
      'BILLING_SERVICE_CLIENTS is unset',
    );
  if (caller.client === null || !access.clients.includes(caller.client))
    refuse(
      `${operation} needs a token of a client BILLING_SERVICE_CLIENTS lists`,
      caller.client === null ? 'no client_id or azp' : `client ${caller.client} is not listed`,
    );
  if (caller.personal.length > 0)
    refuse(
      `${operation} needs a backend's token: this one carries ${caller.personal.join(', ')}`,
      `carries ${caller.personal.join(', ')}`,
    );
}
