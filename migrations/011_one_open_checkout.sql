-- One open checkout session per subject, decided by the database: at most one row per user and one
-- per organisation is `open`. A checkout records its session in a transaction that holds the
-- subject's lock and marks the subject's other open session `replaced` (to be expired at the
-- provider); the unique indexes make a second open row impossible whatever the timing.
-- Existing rows are kept: one whose time ran out becomes `expired`; of several still open for one
-- subject the newest stays open and the others become `replaced`.
UPDATE checkout_sessions SET status = 'expired' WHERE status = 'open' AND expires_at <= now();
UPDATE checkout_sessions older SET status = 'replaced'
WHERE older.status = 'open' AND EXISTS (
  SELECT 1 FROM checkout_sessions newer
  WHERE newer.status = 'open'
    AND (newer.user_id = older.user_id OR newer.organization_id = older.organization_id)
    AND (newer.created_at, newer.id) > (older.created_at, older.id));
CREATE UNIQUE INDEX checkout_sessions_one_open_user ON checkout_sessions (user_id)
  WHERE status = 'open' AND user_id IS NOT NULL;
CREATE UNIQUE INDEX checkout_sessions_one_open_organization ON checkout_sessions (organization_id)
  WHERE status = 'open' AND organization_id IS NOT NULL;
