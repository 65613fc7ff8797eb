-- Workspace budgets in team mode: every replica drops what it cached of them on a write, so a change
-- is enforced on the next request (their ledgers, `workspace:<id>:<interval>`, are in byok_ledgers).
CREATE TRIGGER workspace_budgets_changes AFTER INSERT OR UPDATE OR DELETE ON workspace_budgets FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
