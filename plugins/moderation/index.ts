import { Type as T } from "@sinclair/typebox";
import { type CatalogView, definePluginV2, GatewayError } from "../../src/plugins/api.ts";
import { flaggedInput, guardRequest, moderatedText, reasonsOf, verdictOf } from "./guard.ts";

/** The operator's settings (config `tools.moderation`). */
interface ModerationSettings {
  /** The catalog model that judges input, Llama Guard style. */
  model?: string;
  /** Names of the guard's category codes (`S1: Violent Crimes`), over Llama Guard's own. */
  categories?: Record<string, string>;
}

const SettingsSchema = T.Object(
  {
    model: T.Optional(T.String({ minLength: 1 })),
    categories: T.Optional(T.Record(T.String({ pattern: "^[A-Z0-9_-]+$" }), T.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);

/** The provider that serves the guard model here (its first enabled chat endpoint's), when the catalog has it. */
function guardProvider(catalog: CatalogView, model: string): { slug: string; name: string } | undefined {
  const endpoint = catalog.model(model)?.endpoints.find((candidate) => !candidate.disabled && candidate.operations.has("chat"));
  return endpoint ? { slug: endpoint.provider.slug, name: endpoint.provider.name } : undefined;
}

/**
 * `moderation`: before routing, the request's system and user text goes to the operator's guard model
 * (`tools.moderation.model`, through routing and accounted in the request); flagged input ends the
 * request with a 403 carrying the reasons, the flagged input (at most 100 characters), and the guard's
 * provider and model.
 */
export default definePluginV2({
  apiVersion: 2,
  id: "moderation",
  description: "Refuses input a guard model (Llama Guard convention) flags as unsafe.",
  configSchema: T.Object({}, { additionalProperties: false }),
  settingsSchema: SettingsSchema,
  async prepareRequest(context, { request }) {
    const settings = (context.settings.moderation ?? {}) as ModerationSettings;
    const model = settings.model;
    if (!model) throw new GatewayError("bad_request", "moderation: no moderation model is configured (set tools.moderation.model)");
    const text = moderatedText(request);
    if (text.length === 0) return request;
    const response = await context.call(model, guardRequest(text));
    const verdict = verdictOf(response);
    const provider = guardProvider(context.catalog, model);
    if (!verdict) {
      throw new GatewayError("bad_gateway", `moderation: the moderation model ${model} answered neither "safe" nor "unsafe"`, {
        metadata: { provider: provider?.slug ?? null, provider_code: "invalid_response", model_slug: model },
      });
    }
    if (verdict.safe) return request;
    const reasons = reasonsOf(verdict.categories, settings.categories ?? {});
    throw new GatewayError("forbidden", `moderation: the input was flagged by ${model} for ${reasons.join(", ")}`, {
      metadata: { reasons, flagged_input: flaggedInput(text), provider_name: provider?.name ?? null, model_slug: model },
    });
  },
});
