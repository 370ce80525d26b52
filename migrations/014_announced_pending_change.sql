-- The change pending for a subject's subscription as the application was last told it
-- (`change.scheduled`): the price its schedule moves it to and when; both null when none was.
ALTER TABLE announced_subjects ADD COLUMN pending_price_id text;
ALTER TABLE announced_subjects ADD COLUMN pending_effective_at timestamptz;
