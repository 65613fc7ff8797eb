-- roundhouse_admit counted only the buckets up to the caller's own second. A replica whose clock is
-- a fraction of a second behind another's (or a request that read the clock, then waited for the
-- key's lock across a second's boundary) was admitted without counting the admissions already made in
-- the second after its own: a key could pass its requests-per-minute limit by one or more. Every
-- bucket newer than the caller's minute now counts, and the retry hint stays within the minute.
CREATE OR REPLACE FUNCTION roundhouse_admit(p_key text, p_second integer, p_rpm integer, p_tpm integer)
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
    FROM rate_windows WHERE key_hash = p_key AND second > p_second - 60;
  IF p_rpm IS NOT NULL AND v_requests >= p_rpm THEN
    RETURN QUERY SELECT 'requests'::text, p_rpm, least(60, greatest(1, coalesce(v_oldest_requests, p_second) + 60 - p_second));
    RETURN;
  END IF;
  IF p_tpm IS NOT NULL AND v_tokens >= p_tpm THEN
    RETURN QUERY SELECT 'tokens'::text, p_tpm, least(60, greatest(1, coalesce(v_oldest_tokens, p_second) + 60 - p_second));
    RETURN;
  END IF;
  INSERT INTO rate_windows (key_hash, second, requests) VALUES (p_key, p_second, 1)
    ON CONFLICT (key_hash, second) DO UPDATE SET requests = rate_windows.requests + 1;
  RETURN QUERY SELECT NULL::text, NULL::integer, NULL::integer;
END;
$$;
