// The provider calls a window caused, from the simulator's own count (/_sim/calls, by method and
// route): reset when the window opens, read when it closes. The baseline never calls the provider,
// so its windows show none; the service's show what its webhook and checkout paths asked.
import { API_KEY } from './stack.ts';

export type Calls = Record<string, number>;

export const SUBSCRIPTION_READ = 'GET /v1/subscriptions/:id';
export const EVENT_LIST = 'GET /v1/events';

/**
 * Both calls are idempotent, so a network error is retried once: while the next window's requests
 * are written (seconds of synchronous work), the simulator closes the idle kept-alive connection,
 * and the first call after finds it closed.
 */
async function callsControl(simulatorUrl: string, method: 'GET' | 'DELETE'): Promise<Response> {
  const call = () =>
    fetch(`${simulatorUrl}/_sim/calls`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}` },
    });
  const response = await call().catch((error: unknown) => {
    if (error instanceof TypeError) return call();
    throw error;
  });
  if (!response.ok)
    throw new Error(`${method} /_sim/calls: ${response.status} ${await response.text()}`);
  return response;
}

export async function resetCalls(simulatorUrl: string): Promise<void> {
  await (await callsControl(simulatorUrl, 'DELETE')).arrayBuffer();
}

async function readCalls(simulatorUrl: string): Promise<Calls> {
  return ((await (await callsControl(simulatorUrl, 'GET')).json()) as { calls: Calls }).calls;
}

const total = (calls: Calls) => Object.values(calls).reduce((sum, n) => sum + n, 0);

/**
 * The count once it stops moving (unchanged for 250 ms, at most 5 s): requests still in flight
 * when the load stopped finish their provider calls in this window, not in the next one.
 */
export async function settledCalls(simulatorUrl: string): Promise<Calls> {
  const deadline = Date.now() + 5_000;
  let calls = await readCalls(simulatorUrl);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const again = await readCalls(simulatorUrl);
    if (total(again) === total(calls) || Date.now() > deadline) return again;
    calls = again;
  }
}

export function addCalls(...all: Calls[]): Calls {
  const sum: Calls = {};
  for (const calls of all)
    for (const [route, n] of Object.entries(calls)) sum[route] = (sum[route] ?? 0) + n;
  return sum;
}

/** `GET subscriptions/:id 120, GET events 2`, or `none`. */
export function describeCalls(calls: Calls): string {
  const parts = Object.entries(calls).map(([route, n]) => `${route.replace(' /v1/', ' ')} ${n}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}
