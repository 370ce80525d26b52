// The identity provider, as the domain needs it: an access token in, a principal out.
import type { Principal } from '../model.ts';

export interface TokenVerifier {
  /** Resolves the principal, or throws DomainError('invalid_token'). */
  verify(token: string): Promise<Principal>;
}
