// The identity provider, as the domain needs it: an access token in, a principal out.
import type { Principal, ServiceCaller } from '../model/callers.ts';

export interface TokenVerifier {
  /** Resolves the principal, or throws DomainError('invalid_token'). */
  verify(token: string): Promise<Principal>;
  /**
   * The same checks of the token, without the e-mail a user needs: a backend's token, whose
   * scopes say what it may do. Throws DomainError('invalid_token').
   */
  verifyService(token: string): Promise<ServiceCaller>;
}
