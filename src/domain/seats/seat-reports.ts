// PUT /orgs/{idp_org_id}/seats: the application's backend reports how many seats an organisation
// uses (BILLING_SEATS=reported), with a token of its own whose scope allows it; an end user's token
// never can, whatever its role. A report older than the one stored changes nothing; an organisation
// not seen yet is made as on first sight. The provider's quantity follows outside the request.
// A report from the future would outrank every later one, so `as_of` may be ahead of this
// process's clock by a few minutes of skew at most.
import { DomainError } from '../errors.ts';
import type { Store } from '../ports/store.ts';
import type { SeatMode } from './desired-seats.ts';

export interface SeatReportInput {
  count: number;
  as_of: string;
}

export interface SeatReportAnswer {
  /** False when a report as of a later time was stored already. */
  applied: boolean;
  /** The count stored now, and as of when. */
  reported: number;
  asOf: Date;
}

export interface SeatReportSettings {
  issuer: string;
  mode: SeatMode;
}

/** How far ahead of this process's clock a report's `as_of` may be: clocks drift. */
const AS_OF_SKEW_MS = 5 * 60_000;

/** The report's time, refused when it names no instant (a leap second does not) or the future. */
function reportedAt(asOf: string): Date {
  const at = new Date(asOf);
  if (Number.isNaN(at.getTime()))
    throw invalidAsOf('datetime_parsing', 'Input should be a valid datetime', asOf);
  if (at.getTime() > Date.now() + AS_OF_SKEW_MS)
    throw invalidAsOf('datetime_future', 'Input should not be in the future', asOf);
  return at;
}

const invalidAsOf = (type: string, message: string, input: string) =>
  new DomainError('invalid_field', message, { field: 'as_of', type, input });

export class SeatReports {
  constructor(
    private readonly store: Pick<Store, 'organizations' | 'seats'>,
    /** Null: organisations are off. */
    private readonly settings: SeatReportSettings | null,
  ) {}

  /** For a caller whose token holds the service scope (checked before the body is read). */
  async report(idpOrgId: string, input: SeatReportInput): Promise<SeatReportAnswer> {
    const asOf = reportedAt(input.as_of);
    if (this.settings?.mode !== 'reported')
      throw new DomainError(
        'seat_reports_off',
        'Seat counts are not reported on this service: its seats follow BILLING_SEATS, which is not "reported"',
      );
    const organization = await this.store.organizations.upsert(this.settings.issuer, idpOrgId);
    const applied = await this.store.seats.report(organization.id, {
      count: input.count,
      asOf,
    });
    const stored = (await this.store.seats.reported(organization.id))!;
    return { applied, reported: stored.count, asOf: stored.asOf };
  }
}
