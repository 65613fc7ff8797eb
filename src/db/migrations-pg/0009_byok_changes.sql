-- Replicas cache BYOK credentials: every write to byok_keys is announced to the other replicas.
CREATE TRIGGER byok_keys_changes AFTER INSERT OR UPDATE OR DELETE ON byok_keys FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
