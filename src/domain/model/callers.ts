// Who calls the service: a user proven by a verified access token, a backend by its client, and
// the billing subject a caller names.

/**
 * The organisation a verified token names: one, with the caller's role(s) there as the token gives
 * them (read from each token, never stored), or several, which names none for billing.
 */
export type OrganizationClaim =
  { kind: 'one'; idpOrgId: string; role: string | string[] | null } | { kind: 'several' };

/** Who is calling, as proven by a verified access token. */
export interface Principal {
  idpId: string;
  email: string;
  /** Null when the token names no organisation (or organisations are off). */
  organization: OrganizationClaim | null;
}

/** A caller with a token that may be a backend's (a client-credentials grant). */
export interface ServiceCaller {
  scopes: ReadonlySet<string>;
  /** The OAuth client the token was issued to (`client_id`, RFC 9068, else `azp`); null: none named. */
  client: string | null;
  /**
   * What in the token a backend's never carries: an organisation, an e-mail, an ID token's
   * `nonce`, a logout token's `events`, a grant other than client credentials. Empty for a backend.
   */
  personal: string[];
}

/** Who pays: a user, or an organisation its members' tokens name. */
export interface SubjectRef {
  type: 'user' | 'organization';
  /** Our own id of the user or organisation. */
  id: string;
}
