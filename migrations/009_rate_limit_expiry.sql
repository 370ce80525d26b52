-- The per-user limits' expired windows go as they expire, not only at retention: each hit also
-- deletes a few expired rows (adapters/database/rate-limit-counts.ts), found through this index,
-- so the table holds about the keys counted in the last window however many keys come and go.
-- A hit within a window changes no indexed column: it stays a HOT update.
CREATE INDEX rate_limit_counts_window_end ON rate_limit_counts (window_end);
