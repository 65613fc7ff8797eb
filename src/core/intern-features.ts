import { GatewayError } from "./errors.ts";

/** A feature as the operator declares it (config `interns.features` or `interns.features_dir`). */
export interface FeatureDefinition {
  id: string;
  title: string;
  description: string;
  requires: readonly string[];
  optional: readonly string[];
}

/**
 * A feature recorded on an intern, as the API and the CLI show it. `ready`: every required connection
 * is usable; `degraded`: some are not (named in `missing`); `undeclared`: the operator no longer
 * declares the feature, so what it needs is unknown.
 */
export interface FeatureState {
  id: string;
  title: string | null;
  description: string | null;
  requires: string[];
  optional: string[];
  added_at: string;
  status: "ready" | "degraded" | "undeclared";
  missing: string[];
  missing_optional: string[];
}

/** The operator's features by id. */
export type FeatureCatalog = ReadonlyMap<string, FeatureDefinition>;

export function featureCatalog(definitions: readonly FeatureDefinition[]): FeatureCatalog {
  return new Map(definitions.map((definition) => [definition.id, definition]));
}

/** The declared feature, or a 404 naming the ones that exist. */
export function declaredFeature(catalog: FeatureCatalog, id: string): FeatureDefinition {
  const definition = catalog.get(id);
  if (definition) return definition;
  const known = [...catalog.keys()];
  const list = known.length === 0 ? "no features are declared" : `declared: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", ..." : ""}`;
  throw new GatewayError("not_found", `Feature '${id}' is not declared (${list})`);
}

/**
 * Checks a feature's required connections against `usable`, exactly the list the intern's connections
 * endpoint returns. Any missing: 409 naming them (in the message and as `metadata.missing_connections`).
 */
export function checkRequiredConnections(definition: FeatureDefinition, usable: readonly string[]): void {
  const missing = definition.requires.filter((key) => !usable.includes(key));
  if (missing.length === 0) return;
  throw new GatewayError(
    "conflict",
    `Feature '${definition.id}' requires connections this intern cannot use: ${missing.join(", ")} (each must be stored, enabled, and not turned off or hidden for this intern)`,
    { metadata: { feature: definition.id, missing_connections: missing } },
  );
}

/** How a recorded feature stands now, given the intern's usable connections. */
export function featureState(id: string, addedAt: string, definition: FeatureDefinition | undefined, usable: readonly string[]): FeatureState {
  if (!definition) {
    return { id, title: null, description: null, requires: [], optional: [], added_at: addedAt, status: "undeclared", missing: [], missing_optional: [] };
  }
  const missing = definition.requires.filter((key) => !usable.includes(key));
  return {
    id,
    title: definition.title,
    description: definition.description,
    requires: [...definition.requires],
    optional: [...definition.optional],
    added_at: addedAt,
    status: missing.length === 0 ? "ready" : "degraded",
    missing,
    missing_optional: definition.optional.filter((key) => !usable.includes(key)),
  };
}
