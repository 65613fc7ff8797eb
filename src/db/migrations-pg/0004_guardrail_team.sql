-- Guardrails in team mode: their tables announce changes (replicas drop what they cached), and a
-- guardrail's budget is a ledger of its own (`guardrail:<id>`) shared by the keys it applies to: the
-- keys assigned to it, or every key of the workspace for its default guardrail (`default-<workspace id>`).
CREATE TRIGGER guardrails_changes AFTER INSERT OR UPDATE OR DELETE ON guardrails FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
CREATE TRIGGER guardrail_key_assignments_changes AFTER INSERT OR UPDATE OR DELETE ON guardrail_key_assignments FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
-- What a ledger's keys spent since the period's start: the key's own, or a guardrail's keys'.
CREATE FUNCTION roundhouse_ledger_spent(p_key text, p_period text) RETURNS double precision LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_guardrail text;
BEGIN
  IF p_key NOT LIKE 'guardrail:%' THEN
    RETURN (SELECT coalesce(sum(total_cost), 0) FROM generations WHERE key_hash = p_key AND created_at >= p_period);
  END IF;
  v_guardrail := substr(p_key, 11);
  IF v_guardrail LIKE 'default-%' THEN
    RETURN (SELECT coalesce(sum(total_cost), 0) FROM generations WHERE workspace_id = substr(v_guardrail, 9) AND created_at >= p_period);
  END IF;
  RETURN (SELECT coalesce(sum(g.total_cost), 0) FROM generations g
    WHERE g.key_hash IN (SELECT a.key_hash FROM guardrail_key_assignments a WHERE a.guardrail_id = v_guardrail) AND g.created_at >= p_period);
END;
$$;
--> statement-breakpoint
-- A generation's cost goes to its key's ledger and to the ledgers of the guardrails over its key.
CREATE OR REPLACE FUNCTION roundhouse_ledger_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE spend_ledgers SET spent = spent + NEW.total_cost
    WHERE NEW.created_at >= period_start AND (
      key_hash = NEW.key_hash
      OR key_hash = 'guardrail:default-' || NEW.workspace_id
      OR key_hash IN (SELECT 'guardrail:' || guardrail_id FROM guardrail_key_assignments WHERE key_hash = NEW.key_hash));
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- As in team_functions, with a new period's spend read by roundhouse_ledger_spent (guardrail ledgers included).
CREATE OR REPLACE FUNCTION roundhouse_reserve(p_key text, p_period text, p_limit double precision, p_amount double precision, p_id text, p_now double precision, p_expires double precision)
RETURNS TABLE(reserved double precision, remaining double precision) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_ledger spend_ledgers%ROWTYPE;
  v_held double precision;
  v_remaining double precision;
  v_amount double precision;
BEGIN
  INSERT INTO spend_ledgers (key_hash, period_start, spent) VALUES (p_key, '', 0) ON CONFLICT (key_hash) DO NOTHING;
  SELECT * INTO v_ledger FROM spend_ledgers WHERE key_hash = p_key FOR UPDATE;
  IF v_ledger.period_start <> p_period THEN
    UPDATE spend_ledgers SET period_start = p_period, spent = roundhouse_ledger_spent(p_key, p_period)
      WHERE key_hash = p_key RETURNING * INTO v_ledger;
  END IF;
  DELETE FROM spend_reservations WHERE key_hash = p_key AND expires_at <= p_now;
  SELECT coalesce(sum(amount), 0) INTO v_held FROM spend_reservations WHERE key_hash = p_key;
  v_remaining := greatest(0, p_limit - v_ledger.spent - v_held);
  v_amount := coalesce(p_amount, v_remaining);
  IF (p_amount IS NULL AND v_remaining <= 0) OR v_ledger.spent + v_held + v_amount > p_limit THEN
    RETURN QUERY SELECT NULL::double precision, v_remaining;
    RETURN;
  END IF;
  IF v_amount > 0 THEN
    INSERT INTO spend_reservations (id, key_hash, amount, expires_at) VALUES (p_id, p_key, v_amount, p_expires);
  END IF;
  RETURN QUERY SELECT v_amount, v_remaining;
END;
$$;
