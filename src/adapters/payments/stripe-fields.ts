// The checks every translated field goes through: a field that fails one makes the object
// untranslatable (stripe-mapping.ts says what becomes of it).
const MAX_UNIX_TIME = 253_402_300_799; // 9999-12-31

/** Our own id carried in provider data (metadata, client_reference_id): absent when empty. */
export function nonEmptyText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '' || value.length > 255)
    throw new TypeError(`${field} must be a non-empty string`);
  return value;
}

export function unixTime(value: unknown, field: string): number {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_UNIX_TIME)
    throw new TypeError(`${field} must be a unix time`);
  return value as number;
}

/** An expandable reference: an id, an object with an id, or nothing. */
export function idOf(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  return text(typeof value === 'object' ? (value as { id?: unknown }).id : value, field);
}
