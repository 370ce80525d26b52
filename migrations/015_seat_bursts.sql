-- Pushes made for an organisation while its changes kept coming (one burst): after the first, the
-- seat engine waits for the burst to go quiet (or a long while) before the next, so a long stream
-- of changes costs the provider, and the invoice's proration lines, two updates rather than one a
-- second. Back to 0 once nothing is left to look at.
ALTER TABLE organization_seats ADD COLUMN burst_pushes integer NOT NULL DEFAULT 0;
