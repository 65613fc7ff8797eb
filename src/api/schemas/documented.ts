import { type DocumentDecoration, type TSchema, t } from "elysia";

/**
 * Answers described in the OpenAPI document only (a route's `detail`), for routes whose bodies are
 * built by shared serializers and not validated on the way out: the fields clients rely on are named,
 * others may follow.
 */

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
const Open = { additionalProperties: true };

/** OpenAPI `responses` of JSON answers by status (for a route's `detail`). */
export function documented(responses: Record<number, TSchema>): DocumentDecoration {
  return {
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, schema]) => [status, { description: status === "201" ? "Created" : "OK", content: { "application/json": { schema: schema as object } } }]),
    ),
  };
}

/** An API key as `/keys` shows it (never its secret). */
export const ApiKeyJson = t.Object(
  {
    hash: t.String(),
    name: t.String(),
    label: t.String(),
    kind: t.String(),
    disabled: t.Boolean(),
    limit: Nullable(t.Number()),
    limit_remaining: Nullable(t.Number()),
    limit_reset: Nullable(t.String()),
    usage: t.Number(),
    created_at: t.String(),
    updated_at: Nullable(t.String()),
    expires_at: Nullable(t.String()),
    workspace_id: t.String(),
  },
  Open,
);

/** A workspace as `/workspaces` shows it. */
export const WorkspaceJson = t.Object(
  {
    id: t.String(),
    name: t.String(),
    slug: t.String(),
    description: Nullable(t.String()),
    data_region: Nullable(t.String()),
    created_by: Nullable(t.String()),
    created_at: t.String(),
    updated_at: Nullable(t.String()),
  },
  Open,
);

/** A model of the catalogue (`/models` shape). */
export const ModelJson = t.Object(
  { id: t.String(), canonical_slug: t.String(), name: t.String(), created: t.Number(), description: t.String(), context_length: Nullable(t.Number()), architecture: t.Object({}, Open), pricing: t.Object({}, Open) },
  Open,
);

/** An endpoint of a model (`/endpoints/zdr`, `/models/{author}/{slug}/endpoints` shape). */
export const EndpointJson = t.Object({ name: t.String(), model_id: t.String(), context_length: t.Number(), pricing: t.Object({}, Open), provider_name: t.String(), tag: t.String() }, Open);

/** A generation record (`/generation`). */
export const GenerationJson = t.Object({ id: t.String(), total_cost: t.Number(), created_at: t.String(), model: t.String(), api_type: t.String(), streamed: t.Boolean() }, Open);

/** A list of models with its count and next page (`/models`, `/models/user`). */
export const ModelList = t.Object({ data: t.Array(ModelJson), total_count: t.Integer(), links: t.Object({ next: Nullable(t.String()) }) });
