// The API's wire format for times: ISO 8601 with an explicit offset, as the contract (FastAPI's
// serialiser) writes them. The domain hands the HTTP layer Date values; they become text here.
export const wireTime = (date: Date): string => date.toISOString().replace('Z', '+00:00');

/** A domain value as the API writes it: every Date in it a wire time. */
export type Wired<T> = T extends Date
  ? string
  : T extends readonly (infer Item)[]
    ? Wired<Item>[]
    : T extends object
      ? { [K in keyof T]: Wired<T[K]> }
      : T;

export function wired<T>(value: T): Wired<T> {
  if (value instanceof Date) return wireTime(value) as Wired<T>;
  if (Array.isArray(value)) return value.map(wired) as Wired<T>;
  if (value === null || typeof value !== 'object') return value as Wired<T>;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key, wired(field)]),
  ) as Wired<T>;
}
