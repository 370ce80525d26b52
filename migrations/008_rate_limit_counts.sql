-- The per-user limits (checkouts, portal sessions) counted in the database, so that every instance
-- sharing it counts alike: a user gets the limit, not the limit once per instance. One row per key
-- (`checkout:<sub>`, `portal:<sub>`) and its current window; one statement counts a hit
-- (adapters/database/rate-limit-counts.ts). Retention deletes expired windows in small batches. No
-- index but the key: counting stays a HOT update, and the table holds only recent users.
CREATE TABLE rate_limit_counts (
  key text PRIMARY KEY,
  hits integer NOT NULL,
  window_end timestamptz NOT NULL
);
