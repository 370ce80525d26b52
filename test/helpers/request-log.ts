// The end of a request in a service process's log: its access line ("request completed", or
// "request errored"), written once the request was answered, after every line logged while it was
// handled. A test that reads what a request logged, or looks for what the log must not hold, waits
// for that line rather than for a while.
import type { LogEntry, ServiceProcess } from './service-process.ts';

/** Resolves with the request's own lines once its access line is in the service's output. */
export async function requestLogged<Entry extends LogEntry = LogEntry>(
  service: ServiceProcess,
  response: Response,
  timeoutMs = 10_000,
): Promise<Entry[]> {
  const requestId = response.headers.get('x-request-id');
  if (requestId === null) throw new Error(`${response.url} answered without an x-request-id`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = service.logged<Entry>().filter((entry) => entry.reqId === requestId);
    if (lines.some((entry) => entry.msg === 'request completed' || entry.msg === 'request errored'))
      return lines;
    if (Date.now() > deadline)
      throw new Error(`request ${requestId}: no access line within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
