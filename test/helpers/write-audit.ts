// Counts the handler's effects for real: a trigger logs every write to `subscriptions`, so a test
// can tell "applied once" from "applied twice with the same result".
export const SUBSCRIPTION_WRITE_AUDIT = `
  CREATE TABLE subscription_writes (subscription_id text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
  CREATE FUNCTION audit_subscription_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO subscription_writes (subscription_id) VALUES (NEW.id); RETURN NEW; END $$;
  CREATE TRIGGER audit_subscription_write AFTER INSERT OR UPDATE ON subscriptions FOR EACH ROW EXECUTE FUNCTION audit_subscription_write();`;
