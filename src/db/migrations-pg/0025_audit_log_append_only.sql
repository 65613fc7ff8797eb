-- The audit log is append-only: UPDATE, DELETE and TRUNCATE are refused for every role but one that
-- drops or disables these triggers (which the chain of hashes then reveals).
CREATE FUNCTION roundhouse_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION roundhouse_audit_log_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_audit_log_append_only();
