-- Member guardrails in team mode: their assignments announce changes (replicas drop what they cached),
-- and a guardrail's budget for a member is one ledger per (guardrail, member), named
-- `guardrail:<guardrail id>:member:<member id>`, counting the spend of every key the member created in
-- the guardrail's workspace. The ledger functions keep the earlier names (a key, a key under a guardrail,
-- a workspace budget) and their `byok:` forms (src/core/ledgers.ts), and add the member ledgers.
CREATE TRIGGER guardrail_member_assignments_changes AFTER INSERT OR UPDATE OR DELETE ON guardrail_member_assignments FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
-- What a ledger's owner spent since the period's start: a key, a key under a guardrail (the key hash
-- follows the last colon), a member under a guardrail, or a whole workspace; BYOK spend only for `byok:` ones.
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
  IF v_name LIKE 'guardrail:%:member:%' THEN
    RETURN (SELECT coalesce(sum(g.total_cost), 0) FROM generations g
      JOIN api_keys k ON k.hash = g.key_hash
      JOIN guardrails r ON r.id = split_part(substr(v_name, 11), ':', 1) AND r.workspace_id = g.workspace_id
      WHERE k.creator_user_id = split_part(substr(v_name, 11), ':', 3) AND g.created_at >= p_period AND (v_byok OR NOT g.is_byok));
  END IF;
  v_key := CASE WHEN v_name LIKE 'guardrail:%' THEN regexp_replace(v_name, '^.*:', '') ELSE v_name END;
  RETURN (SELECT coalesce(sum(total_cost), 0) FROM generations WHERE key_hash = v_key AND created_at >= p_period AND (v_byok OR NOT is_byok));
END;
$$;
--> statement-breakpoint
-- A generation's cost goes to its key's ledger, that key's ledger under each guardrail of its
-- workspace, its key's member's ledger under each guardrail of the workspace, and the workspace's
-- budget ledgers: all of them in their `byok:` form, and in their plain form only when it was not
-- served with a BYOK credential.
CREATE OR REPLACE FUNCTION roundhouse_ledger_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE spend_ledgers SET spent = spent + NEW.total_cost
    WHERE NEW.created_at >= period_start AND key_hash IN (
      WITH names(name) AS (
        SELECT NEW.key_hash
        UNION ALL SELECT 'guardrail:default-' || NEW.workspace_id || ':' || NEW.key_hash
        UNION ALL SELECT 'guardrail:' || g.id || ':' || NEW.key_hash FROM guardrails g WHERE g.workspace_id = NEW.workspace_id
        UNION ALL SELECT 'guardrail:' || g.id || ':member:' || k.creator_user_id FROM guardrails g JOIN api_keys k ON k.hash = NEW.key_hash
          WHERE g.workspace_id = NEW.workspace_id AND k.creator_user_id IS NOT NULL
        UNION ALL SELECT 'workspace:' || NEW.workspace_id || ':' || i FROM unnest(ARRAY['daily', 'weekly', 'monthly', 'lifetime']) AS i)
      SELECT 'byok:' || name FROM names
      UNION ALL SELECT name FROM names WHERE NOT NEW.is_byok);
  RETURN NULL;
END;
$$;
