import { decodeChat } from "./codecs/chat/decode.ts";
import type { CanonicalRequest, FunctionTool } from "../core/canonical.ts";
import type { RoutingEnvelope } from "../core/envelope.ts";
import { GatewayError } from "../core/errors.ts";
import { decodeEnvelope } from "./codecs/envelope.ts";

export interface PresetVersionContent {
  config: Record<string, unknown>;
  systemPrompt: string | null;
}

/** The designated version of a workspace's preset by slug (the preset store, served from memory). */
export type PresetLookup = (slug: string) => Promise<PresetVersionContent | undefined>;

const PRESET_MODEL = /^@preset\/(.+)$/;
const MODEL_WITH_PRESET = /^(.+)@preset\/(.+)$/;

/** Fields of a request that a preset never sets. */
const PER_REQUEST = new Set<keyof CanonicalRequest>(["messages", "stream", "streamUsage", "preset", "model", "tools"]);

/**
 * Which preset a request names, if any: `"model": "@preset/slug"`, `"model": "vendor/model@preset/slug"`
 * or `"preset": "slug"` beside a model. Returns the request's own model (possibly empty) and the slug.
 */
export function presetReference(request: RoutingEnvelope): { model: string; slug: string } | undefined {
  const bare = PRESET_MODEL.exec(request.model);
  if (bare) return { model: "", slug: bare[1]! };
  const suffixed = MODEL_WITH_PRESET.exec(request.model);
  if (suffixed) return { model: suffixed[1]!, slug: suffixed[2]! };
  if (request.preset) return { model: request.model, slug: request.preset };
  return undefined;
}

/** Preset tools keep their order; a request tool of the same name replaces one; request-only tools follow. */
function unionTools(preset: FunctionTool[] = [], request: FunctionTool[] = []): FunctionTool[] {
  const fromRequest = new Map(request.map((tool) => [tool.name, tool]));
  const merged = preset.map((tool) => fromRequest.get(tool.name) ?? tool);
  const presetNames = new Set(preset.map((tool) => tool.name));
  return [...merged, ...request.filter((tool) => !presetNames.has(tool.name))];
}

/**
 * Applies the designated version of the named preset: a shallow merge where the request's fields win,
 * tools unioned by identity, and the preset's system prompt prepended to the conversation.
 */
export async function applyPreset(request: CanonicalRequest, lookup: PresetLookup): Promise<CanonicalRequest> {
  const reference = presetReference(request);
  if (!reference) return request;
  const preset = await lookup(reference.slug);
  if (!preset) throw new GatewayError("not_found", `Preset '${reference.slug}' not found in this workspace`);
  const fromPreset = decodeChat({ ...preset.config, messages: [] });
  const merged: CanonicalRequest = { ...request, model: reference.model };
  for (const [key, value] of Object.entries(fromPreset) as Array<[keyof CanonicalRequest, unknown]>) {
    if (PER_REQUEST.has(key) || value === undefined) continue;
    if ((merged as unknown as Record<string, unknown>)[key] === undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  if (!merged.model) merged.model = fromPreset.model;
  if (!merged.model && merged.models?.length) merged.model = merged.models[0]!;
  if (fromPreset.tools || request.tools) merged.tools = unionTools(fromPreset.tools, request.tools);
  if (preset.systemPrompt) {
    merged.messages = [{ role: "system", content: [{ type: "text", text: preset.systemPrompt }] }, ...request.messages];
  }
  delete merged.preset;
  return merged;
}

/**
 * A preset applied to a request of another operation (embeddings, rerank, speech, ...): what routing
 * reads of it (model, fallback models, provider preferences, route) fills what the request left out;
 * its conversation settings (system prompt, sampling, tools) do not apply.
 */
export async function applyPresetEnvelope<R extends RoutingEnvelope>(request: R, lookup: PresetLookup): Promise<R> {
  const reference = presetReference(request);
  if (!reference) return request;
  const preset = await lookup(reference.slug);
  if (!preset) throw new GatewayError("not_found", `Preset '${reference.slug}' not found in this workspace`);
  const fromPreset = decodeEnvelope(preset.config);
  const merged: R = { ...request, model: reference.model || fromPreset.model };
  if (merged.models === undefined && fromPreset.models !== undefined) merged.models = fromPreset.models;
  if (merged.provider === undefined && fromPreset.provider !== undefined) merged.provider = fromPreset.provider;
  if (merged.route === undefined && fromPreset.route !== undefined) merged.route = fromPreset.route;
  if (!merged.model && merged.models?.length) merged.model = merged.models[0]!;
  delete merged.preset;
  return merged;
}
