// The API's wire format for times: ISO 8601 with an explicit offset, as the contract (FastAPI's
// serialiser) writes them. The domain hands the HTTP layer Date values; they become text here.
export const wireTime = (date: Date): string => date.toISOString().replace('Z', '+00:00');
