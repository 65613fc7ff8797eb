-- The hourly sums (every key together) of the records written before generation_rollups had hourly
-- rows; `id` is the group's values, the key null and the hour last, as a JSON array, as the generation
-- writer spells it (src/db/generation-rollup.ts).
INSERT INTO `generation_rollups` (
  `id`, `workspace_id`, `day`, `model`, `provider_slug`, `provider_name`, `upstream_model`, `key_hash`, `style`, `status`,
  `requests`, `total_cost`, `tokens_prompt`, `tokens_completion`, `tokens_reasoning`, `tokens_cached`,
  `latency_sum`, `latency_count`, `generation_time_sum`, `generation_time_count`, `completion_time_sum`, `byok_cost`, `hour`
)
SELECT
  json_array(`workspace_id`, substr(`created_at`, 1, 10), `model`, `provider_slug`, `provider_name`, `upstream_model`, NULL, `style`, `status`, substr(`created_at`, 1, 13)),
  `workspace_id`, substr(`created_at`, 1, 10), `model`, `provider_slug`, `provider_name`, `upstream_model`, NULL, `style`, `status`,
  count(*), coalesce(sum(`total_cost`), 0), coalesce(sum(`tokens_prompt`), 0), coalesce(sum(`tokens_completion`), 0),
  coalesce(sum(`tokens_reasoning`), 0), coalesce(sum(`tokens_cached`), 0),
  coalesce(sum(`latency_ms`), 0), count(`latency_ms`), coalesce(sum(`generation_time_ms`), 0), count(`generation_time_ms`),
  coalesce(sum(CASE WHEN `tokens_completion` IS NOT NULL THEN `generation_time_ms` END), 0),
  coalesce(sum(CASE WHEN `is_byok` THEN `total_cost` END), 0),
  substr(`created_at`, 1, 13)
FROM `generations`
GROUP BY `workspace_id`, substr(`created_at`, 1, 10), substr(`created_at`, 1, 13), `model`, `provider_slug`, `provider_name`, `upstream_model`, `style`, `status`;
