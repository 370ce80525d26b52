-- Background jobs that one instance at a time runs on a schedule (the reconciliation, retention),
-- however many instances share this database. Each job has one row: a lease (who holds it, until
-- when; renewed while the job runs, so the lease of a holder that died runs out and another
-- instance takes over), and the job's last complete run, which decides when it is due again and
-- what its metrics say (the reconciliation's repairs, say). No lock is held while a job runs.
CREATE TABLE job_leases (
  job text PRIMARY KEY,
  holder text,
  held_until timestamptz,
  started_at timestamptz,
  completed_at timestamptz,
  result jsonb
);
