-- Member guardrails in team mode: their assignments announce changes (replicas drop what they cached),
-- and a guardrail's budget for a member is one ledger per (guardrail, member), named
-- `guardrail:<guardrail id>:member:<member id>`, counting the spend of every key the member created in
-- the guardrail's workspace.
CREATE TRIGGER guardrail_member_assignments_changes AFTER INSERT OR UPDATE OR DELETE ON guardrail_member_assignments FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
-- What a ledger's key (or member) spent since the period's start.
CREATE OR REPLACE FUNCTION roundhouse_ledger_spent(p_key text, p_period text) RETURNS double precision LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_key text;
BEGIN
  IF p_key LIKE 'guardrail:%:member:%' THEN
    RETURN (SELECT coalesce(sum(g.total_cost), 0) FROM generations g
      JOIN api_keys k ON k.hash = g.key_hash
      JOIN guardrails r ON r.id = split_part(substr(p_key, 11), ':', 1) AND r.workspace_id = g.workspace_id
      WHERE k.creator_user_id = split_part(substr(p_key, 11), ':', 3) AND g.created_at >= p_period);
  END IF;
  v_key := CASE WHEN p_key LIKE 'guardrail:%' THEN regexp_replace(p_key, '^.*:', '') ELSE p_key END;
  RETURN (SELECT coalesce(sum(total_cost), 0) FROM generations WHERE key_hash = v_key AND created_at >= p_period);
END;
$$;
--> statement-breakpoint
-- A generation's cost goes to its key's ledger, to that key's ledger under each guardrail of its
-- workspace, and to its key's member's ledger under each guardrail of the workspace.
CREATE OR REPLACE FUNCTION roundhouse_ledger_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE spend_ledgers SET spent = spent + NEW.total_cost
    WHERE NEW.created_at >= period_start AND key_hash IN (
      SELECT NEW.key_hash
      UNION ALL SELECT 'guardrail:default-' || NEW.workspace_id || ':' || NEW.key_hash
      UNION ALL SELECT 'guardrail:' || g.id || ':' || NEW.key_hash FROM guardrails g WHERE g.workspace_id = NEW.workspace_id
      UNION ALL SELECT 'guardrail:' || g.id || ':member:' || k.creator_user_id FROM guardrails g JOIN api_keys k ON k.hash = NEW.key_hash
        WHERE g.workspace_id = NEW.workspace_id AND k.creator_user_id IS NOT NULL);
  RETURN NULL;
END;
$$;
