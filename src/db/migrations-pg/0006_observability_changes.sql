-- Broadcast destinations are cached by every replica: announce their changes.
CREATE TRIGGER observability_destinations_changes AFTER INSERT OR UPDATE OR DELETE ON observability_destinations FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
