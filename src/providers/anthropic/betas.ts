/**
 * `anthropic-beta` flags a client's request may carry to an Anthropic-wire upstream. Flags outside
 * the allow-list are not forwarded (and the request says so in its warnings): a beta can change what
 * the upstream accepts and bills, so the operator decides. These defaults are what Claude Code sends
 * for its default features; a provider's `anthropic_beta_allow` adds to them.
 */
export const DEFAULT_ANTHROPIC_BETAS: readonly string[] = [
  "claude-code-20250219",
  "interleaved-thinking-2025-05-14",
  "context-management-2025-06-27",
  "mid-conversation-tool-changes-2026-07-01",
  "thinking-token-count-2026-05-13",
  "advanced-tool-use-2025-11-20",
  "effort-2025-11-24",
  "thinking-display-updates-2026-08-18",
  "fine-grained-tool-streaming-2025-05-14",
  "prompt-caching-scope-2026-01-05",
  "token-counting-2024-11-01",
];

const DEFAULTS: ReadonlySet<string> = new Set(DEFAULT_ANTHROPIC_BETAS);

/** The flags of `anthropic-beta` header values (comma-separated, possibly repeated). */
export function betaFlags(value: string): string[] {
  return value
    .split(",")
    .map((flag) => flag.trim())
    .filter((flag) => flag !== "");
}

/**
 * The `anthropic-beta` value to send: the operator's own (a provider header) then the client's allowed
 * flags (the defaults and the provider's `anthropic_beta_allow`, given as `allow`), each once; the
 * client's other flags go to `warnings`.
 */
export function forwardedBetas(client: string[] | undefined, operator: string | undefined, allow: ReadonlySet<string>, warnings: string[]): string | undefined {
  const flags = new Set(operator === undefined ? [] : betaFlags(operator));
  const refused: string[] = [];
  for (const flag of client ?? []) {
    if (DEFAULTS.has(flag) || allow.has(flag) || flags.has(flag)) flags.add(flag);
    else refused.push(flag);
  }
  if (refused.length > 0) warnings.push(`anthropic-beta: ${refused.join(", ")} not forwarded (not in the provider's anthropic_beta_allow)`);
  return flags.size > 0 ? [...flags].join(",") : undefined;
}
