-- Ledgers that leave BYOK spend out, and workspace budgets. A ledger named with the prefix `byok:`
-- counts the cost of generations served with a BYOK credential; one without it leaves them out (see
-- src/core/ledgers.ts). A workspace's budget for an interval is one ledger for all its keys,
-- `workspace:<workspace id>:<interval>`.

-- What a ledger's owner spent since the period's start: a key (its own ledger or its ledger under a
-- guardrail; the key hash follows the last colon) or a whole workspace, BYOK spend only for `byok:` ones.
CREATE OR REPLACE FUNCTION roundhouse_ledger_spent(p_key text, p_period text) RETURNS double precision LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_byok boolean := p_key LIKE 'byok:%';
  v_name text := CASE WHEN p_key LIKE 'byok:%' THEN substr(p_key, 6) ELSE p_key END;
  v_key text;
BEGIN
  IF v_name LIKE 'workspace:%' THEN
    RETURN (SELECT coalesce(sum(total_cost), 0) FROM generations
      WHERE workspace_id = regexp_replace(substr(v_name, 11), ':[^:]*$', '') AND created_at >= p_period AND (v_byok OR NOT is_byok));
  END IF;
  v_key := CASE WHEN v_name LIKE 'guardrail:%' THEN regexp_replace(v_name, '^.*:', '') ELSE v_name END;
  RETURN (SELECT coalesce(sum(total_cost), 0) FROM generations WHERE key_hash = v_key AND created_at >= p_period AND (v_byok OR NOT is_byok));
END;
$$;
--> statement-breakpoint
-- A generation's cost goes to its key's ledger, that key's ledger under each guardrail of its
-- workspace and the workspace's budget ledgers: all of them in their `byok:` form, and in their plain
-- form only when it was not served with a BYOK credential.
CREATE OR REPLACE FUNCTION roundhouse_ledger_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE spend_ledgers SET spent = spent + NEW.total_cost
    WHERE NEW.created_at >= period_start AND key_hash IN (
      WITH names(name) AS (
        SELECT NEW.key_hash
        UNION ALL SELECT 'guardrail:default-' || NEW.workspace_id || ':' || NEW.key_hash
        UNION ALL SELECT 'guardrail:' || g.id || ':' || NEW.key_hash FROM guardrails g WHERE g.workspace_id = NEW.workspace_id
        UNION ALL SELECT 'workspace:' || NEW.workspace_id || ':' || i FROM unnest(ARRAY['daily', 'weekly', 'monthly', 'lifetime']) AS i)
      SELECT 'byok:' || name FROM names
      UNION ALL SELECT name FROM names WHERE NOT NEW.is_byok);
  RETURN NULL;
END;
$$;
