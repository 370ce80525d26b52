// A DATA_DIR that does not exist yet, as on a fresh clone or a new deployment: the service (or the
// command) under test must create it. Directly under the system's temporary directory, which every
// user may pass through (as root the embedded PostgreSQL runs as another user).
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const freshDataDir = (label: string): string =>
  join(tmpdir(), `${label}-${randomUUID().slice(0, 8)}`);
