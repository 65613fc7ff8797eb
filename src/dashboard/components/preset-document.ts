/**
 * Presets as the dashboard reads and writes them: a version's content (`{config, system_prompt}`), the
 * chat-completions body that stores such content as a new version through `POST /presets/{slug}/chat/completions`,
 * and the exported file (a preset's metadata and every version's content, oldest first).
 */
import { api } from "../api.ts";

/** A preset as `GET /api/v1/presets` lists it. */
export interface Preset {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  status: string;
  created_at: string;
  updated_at: string;
  designated_version_id: string | null;
}

/** A version as `GET /api/v1/presets/{slug}/versions` lists it. */
export interface PresetVersion {
  id: string;
  version: number;
  config: Record<string, unknown>;
  system_prompt: string | null;
  creator_id: string;
  created_at: string;
}

/** What a version holds, the unit the diff compares and the editor and import accept. */
export interface VersionContent {
  config: Record<string, unknown>;
  system_prompt: string | null;
}

/** The exported file of one preset. */
export interface PresetExport {
  roundhouse_preset: 1;
  slug: string;
  name: string;
  description: string | null;
  versions: Array<VersionContent & { version: number }>;
}

/** The content of a version, without its bookkeeping. */
export function contentOf(version: PresetVersion): VersionContent {
  return { config: version.config, system_prompt: version.system_prompt };
}

/** Where a preset's routes live. */
export function presetPath(slug: string): string {
  return `/api/v1/presets/${encodeURIComponent(slug)}`;
}

/** Every version of a preset, oldest first (the API pages by at most 100). */
export async function allVersions(slug: string): Promise<PresetVersion[]> {
  const versions: PresetVersion[] = [];
  for (;;) {
    const page = await api<{ data: PresetVersion[]; total_count: number }>("GET", `${presetPath(slug)}/versions?limit=100&offset=${versions.length}`);
    versions.push(...page.data);
    if (page.data.length === 0 || versions.length >= page.total_count) break;
  }
  return versions.sort((left, right) => left.version - right.version);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Checks that `value` is `{config: {...}, system_prompt?: string | null}` (an exported `version` number is
 * ignored) and nothing else; `where` prefixes the errors.
 */
export function checkContent(value: unknown, where = ""): VersionContent {
  if (!isObject(value)) throw new Error(`${where}must be an object {"config": {...}, "system_prompt": "..." or null}`);
  const extra = Object.keys(value).filter((key) => key !== "config" && key !== "system_prompt" && key !== "version");
  if (extra.length > 0) throw new Error(`${where}${extra[0]}: not allowed (a version holds "config" and "system_prompt")`);
  if (!isObject(value.config)) throw new Error(`${where}config: must be an object`);
  const prompt = value.system_prompt ?? null;
  if (prompt !== null && typeof prompt !== "string") throw new Error(`${where}system_prompt: must be a string or null`);
  return { config: value.config, system_prompt: prompt };
}

/** Parses the JSON text of a version; the error names the problem. */
export function parseContent(text: string): VersionContent {
  return checkContent(parseJson(text));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (failure) {
    throw new Error(`JSON: ${(failure as Error).message}`);
  }
}

/**
 * The chat-completions body that stores `content` as a version. The endpoint needs one message: the
 * system prompt when there is one, else a user message, which (like every per-request field) the
 * preset does not keep.
 */
function chatBody(content: VersionContent): Record<string, unknown> {
  const message = content.system_prompt === null ? { role: "user", content: "(preset version)" } : { role: "system", content: content.system_prompt };
  return { ...content.config, messages: [message] };
}

/** Stores `content` as the new designated version of `slug` (creating the preset on first use). */
export async function createVersion(slug: string, content: VersionContent): Promise<PresetVersion> {
  const answer = await api<{ data: { designated_version: PresetVersion } }>("POST", `${presetPath(slug)}/chat/completions`, chatBody(content));
  return answer.data.designated_version;
}

/** The exported file of a preset and its versions. */
export function exportDocument(preset: Preset, versions: PresetVersion[]): PresetExport {
  return {
    roundhouse_preset: 1,
    slug: preset.slug,
    name: preset.name,
    description: preset.description,
    versions: versions.map((version) => ({ version: version.version, ...contentOf(version) })),
  };
}

/** The versions an imported text holds (an exported file, or one version's content) and the slug it names, if any. */
export function parseImport(text: string): { slug: string | undefined; versions: VersionContent[] } {
  const value = parseJson(text);
  if (isObject(value) && "versions" in value) {
    if (!Array.isArray(value.versions) || value.versions.length === 0) throw new Error("versions: must be a non-empty array");
    const slug = typeof value.slug === "string" ? value.slug : undefined;
    return { slug, versions: value.versions.map((version, index) => checkContent(version, `versions[${index}]: `)) };
  }
  return { slug: undefined, versions: [checkContent(value)] };
}
