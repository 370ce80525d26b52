// What a click did is said on the page it lands on, but the words never travel in the URL: a
// link anyone can craft (`?notice=re-enter your card at https://...`) would otherwise put any text
// on the dashboard or the portal, read as the simulator's own. The page gets a random id instead,
// kept here for ten minutes (at most the last 500), and an id it does not know shows nothing.
import { randomBytes } from 'node:crypto';

const KEEP_MS = 10 * 60_000;
const AT_MOST = 500;

export class NoticeBoard {
  private readonly notices = new Map<string, { text: string; at: number }>();

  /** Keeps `text` and returns the id a redirect carries (`?notice=<id>`). */
  post(text: string): string {
    const id = randomBytes(9).toString('base64url');
    this.notices.set(id, { text, at: Date.now() });
    if (this.notices.size > AT_MOST) this.notices.delete(this.notices.keys().next().value!);
    return id;
  }

  read(id: unknown): string | null {
    const notice = typeof id === 'string' ? this.notices.get(id) : undefined;
    return notice !== undefined && Date.now() - notice.at < KEEP_MS ? notice.text : null;
  }
}
