// The development /billing forms as a browser posts them, and the page a post lands on: the forms
// answer 303 to /billing (post-redirect-get), which shows what came of the post once.
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

export type Injected = Awaited<ReturnType<TestApp['app']['inject']>>;

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export const postForm = (
  t: TestApp,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Injected> =>
  t.app.inject({
    method: 'POST',
    url: path,
    headers: { ...FORM, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });

export const setCookies = (response: Injected): string[] => {
  const header = response.headers['set-cookie'] ?? [];
  return Array.isArray(header) ? header : [String(header)];
};

/**
 * The page the browser gets after a post answered 303 to /billing, with the cookies the post set
 * (and `cookie`, those it already had, unless the post cleared them).
 */
export async function landing(t: TestApp, posted: Injected, cookie = ''): Promise<Injected> {
  assert.equal(posted.statusCode, 303, posted.body);
  assert.equal(posted.headers.location, '/billing');
  const jar = new Map(
    cookie
      .split('; ')
      .filter(Boolean)
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
  for (const line of setCookies(posted)) {
    const [name, value] = line.split(';')[0]!.split('=', 2) as [string, string];
    if (/Max-Age=0/.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
  const headers = { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') };
  return t.app.inject({ method: 'GET', url: '/billing', headers });
}
