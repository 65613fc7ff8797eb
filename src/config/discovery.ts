import type { Logger } from "../core/log.ts";
import type { ModelConfig, ProviderConfig } from "./catalog-schema.ts";
import type { Config } from "./schema.ts";

/** How long listing one upstream's models may take before it counts as failed. */
const LIST_TIMEOUT_MS = 10_000;
/** The most models one upstream may add: a listing larger than this is cut, with a warning. */
const MAX_DISCOVERED = 5_000;

type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/** A `*` pattern as a whole-string test. */
function matcher(pattern: string): (id: string) => boolean {
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  const regex = new RegExp(`^${source}$`);
  return (id) => regex.test(id);
}

function filterOf(setting: NonNullable<ProviderConfig["discover_models"]>): (id: string) => boolean {
  if (setting === true || setting === false) return () => setting;
  const include = setting.include?.map(matcher);
  const exclude = (setting.exclude ?? []).map(matcher);
  return (id) => (include === undefined || include.some((test) => test(id))) && !exclude.some((test) => test(id));
}

interface Listed {
  id: string;
  contextLength: number | undefined;
}

/** The ids (and context lengths, where the server says) of an OpenAI-compatible `GET /models` answer. */
function listedModels(body: unknown): Listed[] | string {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return "the answer has no data array";
  const listed: Listed[] = [];
  for (const entry of data) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || id.length === 0 || id.length > 256) continue;
    // vLLM says max_model_len, others context_length.
    const length = (entry as { context_length?: unknown; max_model_len?: unknown }).context_length ?? (entry as { max_model_len?: unknown }).max_model_len;
    listed.push({ id, contextLength: typeof length === "number" && Number.isInteger(length) && length > 0 ? length : undefined });
  }
  return listed;
}

async function listProvider(provider: ProviderConfig, fetcher: Fetch): Promise<Listed[] | string> {
  const base = (provider.base_url ?? "").replace(/\/+$/, "");
  if (!base) return "the provider has no base_url";
  const url = `${base}/models`;
  const headers: Record<string, string> = { accept: "application/json", ...(provider.headers ?? {}) };
  if (provider.api_key) headers.authorization = `Bearer ${provider.api_key}`;
  let response: Response;
  try {
    response = await fetcher(url, { headers, signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === "TimeoutError") return `${url} did not answer within ${LIST_TIMEOUT_MS / 1000} s`;
    const code = (error as { code?: string }).code;
    return `${url} could not be reached${code === "ConnectionRefused" || code === "ECONNREFUSED" ? " (connection refused)" : ""}`;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    return `${url} answered ${response.status}`;
  }
  const body = await response.json().catch(() => undefined);
  if (body === undefined) return `${url} did not answer JSON`;
  return listedModels(body);
}

/**
 * The models of `config` plus those its providers with `discover_models` list upstream. A declared
 * model keeps its id (discovery never changes it); an id two providers list becomes one model with an
 * endpoint on each. A provider whose listing fails adds nothing, with one warning naming why.
 */
export async function discoverModels(config: Pick<Config, "providers" | "models">, options: { logger: Logger; fetch?: Fetch }): Promise<ModelConfig[]> {
  const discovering = Object.entries(config.providers).filter(([, provider]) => provider.discover_models !== undefined && provider.discover_models !== false);
  if (discovering.length === 0) return config.models;
  const fetcher: Fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const declared = new Set(config.models.map((model) => model.id));
  const found = new Map<string, ModelConfig>();
  const listings = await Promise.all(discovering.map(async ([slug, provider]) => ({ slug, provider, listed: await listProvider(provider, fetcher) })));
  for (const { slug, provider, listed } of listings) {
    if (typeof listed === "string") {
      options.logger.warn("model discovery failed; the provider serves its declared models only", { provider: slug, reason: listed });
      continue;
    }
    const wanted = filterOf(provider.discover_models!);
    const kept = listed.filter(({ id }) => wanted(id) && !declared.has(id));
    if (kept.length > MAX_DISCOVERED) options.logger.warn("model discovery listed too many models; the first ones are kept", { provider: slug, listed: kept.length, kept: MAX_DISCOVERED });
    for (const { id, contextLength } of kept.slice(0, MAX_DISCOVERED)) {
      const endpoint = { provider: slug, model: id, pricing: {}, collects_data: false, retains_prompts: false, ...(contextLength ? { context_length: contextLength } : {}) };
      const model = found.get(id);
      if (model) model.endpoints.push(endpoint);
      else found.set(id, { id, name: id, description: `Discovered on ${provider.name ?? slug}`, endpoints: [endpoint] });
    }
    options.logger.info("models discovered", { provider: slug, models: kept.length });
  }
  return [...config.models, ...found.values()];
}
