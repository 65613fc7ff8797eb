-- Team mode: the change feed, the shared rate windows and the shared spend ledger.

-- Every write to a table the replicas cache is announced on the channel `roundhouse_changes` with the
-- table's name, so every replica drops what it cached of that table (a write by the CLI included).
CREATE FUNCTION roundhouse_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('roundhouse_changes', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER api_keys_changes AFTER INSERT OR UPDATE OR DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
CREATE TRIGGER workspaces_changes AFTER INSERT OR UPDATE OR DELETE ON workspaces FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
CREATE TRIGGER presets_changes AFTER INSERT OR UPDATE OR DELETE ON presets FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
CREATE TRIGGER preset_versions_changes AFTER INSERT OR UPDATE OR DELETE ON preset_versions FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
CREATE TRIGGER interns_changes AFTER INSERT OR UPDATE OR DELETE ON interns FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
CREATE TRIGGER connections_changes AFTER INSERT OR UPDATE OR DELETE ON connections FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
CREATE TRIGGER vault_secrets_changes AFTER INSERT OR UPDATE OR DELETE ON vault_secrets FOR EACH STATEMENT EXECUTE FUNCTION roundhouse_announce_change();
--> statement-breakpoint
-- A generation's cost is added to its key's ledger in the transaction that records it, when the
-- ledger's period had started by then: the ledger is always the sum of the period's records.
CREATE FUNCTION roundhouse_ledger_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE spend_ledgers SET spent = spent + NEW.total_cost
    WHERE key_hash = NEW.key_hash AND NEW.created_at >= period_start;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER generations_ledger AFTER INSERT ON generations FOR EACH ROW WHEN (NEW.total_cost <> 0) EXECUTE FUNCTION roundhouse_ledger_add();
--> statement-breakpoint
-- Admits one request against a key's requests- and tokens-per-minute limits over a sliding minute of
-- one-second buckets, exactly across replicas: admissions of one key are serialized by an advisory
-- lock held to the end of the call's transaction, and each statement of a VOLATILE function sees what
-- committed before it. Returns the refused limit's kind (null when admitted), its limit and the
-- seconds until the oldest counted bucket leaves the window.
CREATE FUNCTION roundhouse_admit(p_key text, p_second integer, p_rpm integer, p_tpm integer)
RETURNS TABLE(refused text, refused_limit integer, retry_after integer) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_requests double precision;
  v_tokens double precision;
  v_oldest_requests integer;
  v_oldest_tokens integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('roundhouse_rate:' || p_key, 0));
  DELETE FROM rate_windows WHERE key_hash = p_key AND second <= p_second - 60;
  SELECT coalesce(sum(requests), 0), coalesce(sum(tokens), 0),
         min(second) FILTER (WHERE requests > 0), min(second) FILTER (WHERE tokens > 0)
    INTO v_requests, v_tokens, v_oldest_requests, v_oldest_tokens
    FROM rate_windows WHERE key_hash = p_key AND second > p_second - 60 AND second <= p_second;
  IF p_rpm IS NOT NULL AND v_requests >= p_rpm THEN
    RETURN QUERY SELECT 'requests'::text, p_rpm, greatest(1, coalesce(v_oldest_requests, p_second) + 60 - p_second);
    RETURN;
  END IF;
  IF p_tpm IS NOT NULL AND v_tokens >= p_tpm THEN
    RETURN QUERY SELECT 'tokens'::text, p_tpm, greatest(1, coalesce(v_oldest_tokens, p_second) + 60 - p_second);
    RETURN;
  END IF;
  INSERT INTO rate_windows (key_hash, second, requests) VALUES (p_key, p_second, 1)
    ON CONFLICT (key_hash, second) DO UPDATE SET requests = rate_windows.requests + 1;
  RETURN QUERY SELECT NULL::text, NULL::integer, NULL::integer;
END;
$$;
--> statement-breakpoint
-- Reserves up to `p_amount` USD of a key's spend limit for one request (null: all that remains, for
-- a request nothing bounds). The key's ledger row is locked, so reservations of one key from every
-- replica are serialized; a ledger of another period is recomputed from the period's records. Active
-- reservations (not expired: a killed replica's expire) count against the limit. Returns what was
-- reserved (null when refused) and what remained before.
CREATE FUNCTION roundhouse_reserve(p_key text, p_period text, p_limit double precision, p_amount double precision, p_id text, p_now double precision, p_expires double precision)
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
    UPDATE spend_ledgers SET period_start = p_period,
      spent = (SELECT coalesce(sum(total_cost), 0) FROM generations WHERE key_hash = p_key AND created_at >= p_period)
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
