// The error catalogue: domain code throws these codes; the HTTP layer alone maps them to statuses.
export type ErrorCode =
  | 'not_authenticated'
  | 'invalid_token'
  | 'invalid_redirect_url'
  | 'invalid_field'
  | 'subscription_active'
  | 'organization_required'
  | 'manager_role_required'
  | 'service_caller_refused'
  | 'seat_reports_off'
  | 'credits_not_for_sale'
  | 'idempotency_key_reused'
  | 'nothing_to_manage'
  | 'invalid_signature'
  | 'payload_too_large'
  | 'payments_unavailable'
  | 'payments_throttled'
  | 'database_unavailable';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra facts the HTTP layer may show (never secrets), e.g. which field was wrong. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/**
 * The provider answered with an object the payments adapter cannot translate (a customer it cannot
 * name, a shape it does not know). Not for a client: the webhook service acknowledges the event
 * that needed the object as `unmappable`, since asking again would get the same answer.
 */
export class UnmappableAnswer extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnmappableAnswer';
  }
}
