-- A guardrail's budget is per key, never pooled across the keys it applies to: its ledgers are named
-- `guardrail:<guardrail id>:<key hash>`, one per (guardrail, key), and each counts that key's spend in
-- the guardrail's period. The pooled ledgers of 0004 (`guardrail:<guardrail id>`) are no longer read.
DELETE FROM spend_reservations WHERE key_hash LIKE 'guardrail:%';
--> statement-breakpoint
DELETE FROM spend_ledgers WHERE key_hash LIKE 'guardrail:%';
--> statement-breakpoint
-- What a ledger's key spent since the period's start: the key's own ledger, or a guardrail's ledger of
-- that key (the key hash follows the last colon).
CREATE OR REPLACE FUNCTION roundhouse_ledger_spent(p_key text, p_period text) RETURNS double precision LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_key text := CASE WHEN p_key LIKE 'guardrail:%' THEN regexp_replace(p_key, '^.*:', '') ELSE p_key END;
BEGIN
  RETURN (SELECT coalesce(sum(total_cost), 0) FROM generations WHERE key_hash = v_key AND created_at >= p_period);
END;
$$;
--> statement-breakpoint
-- A generation's cost goes to its key's ledger and to that key's ledger under each guardrail of its
-- workspace (whether or not the key holds it now: a ledger always sums its key's records of the period,
-- so assigning a key again within a period finds its ledger exact).
CREATE OR REPLACE FUNCTION roundhouse_ledger_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE spend_ledgers SET spent = spent + NEW.total_cost
    WHERE NEW.created_at >= period_start AND key_hash IN (
      SELECT NEW.key_hash
      UNION ALL SELECT 'guardrail:default-' || NEW.workspace_id || ':' || NEW.key_hash
      UNION ALL SELECT 'guardrail:' || g.id || ':' || NEW.key_hash FROM guardrails g WHERE g.workspace_id = NEW.workspace_id);
  RETURN NULL;
END;
$$;
