import { Elysia, t } from "elysia";
import { checkRequiredConnections, declaredFeature, featureState } from "../core/intern-features.ts";
import { GatewayError } from "../core/errors.ts";
import type { Services } from "./services.ts";
import { authenticate, requireInternProgramme, requireWorkspaceRoute, resolveIntern } from "./auth.ts";

const AddFeatureBody = t.Object({ feature: t.String({ minLength: 1, maxLength: 64 }) });

/**
 * Features of an intern. Adding one checks its required connections against exactly the list of
 * `GET /vault/interns/{internId}/connections`; a feature whose connection later goes away is listed
 * as degraded, naming what is missing. Management keys add and remove; an intern's own key may read
 * its features. `GET /features` lists what the operator declared.
 */
export function internFeaturesApi(services: Services) {
  const usable = (workspaceId: string, internId: string) => services.connections.usableBy(workspaceId, internId);
  return new Elysia({ name: "intern-features-api" })
    .derive(async ({ request }) => {
      const principal = await authenticate(services, request);
      requireInternProgramme(principal);
      return { principal };
    })
    .get("/features", ({ principal }) => {
      requireWorkspaceRoute(principal);
      return { data: [...services.features.values()].map((feature) => ({ ...feature })) };
    })
    .get("/interns/:internId/features", async ({ principal, params }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: true });
      const keys = await usable(principal.workspace.id, intern.id);
      return {
        data: (await services.internFeatures.list(intern.id)).map((row) => featureState(row.featureId, row.createdAt, services.features.get(row.featureId), keys)),
      };
    })
    .post(
      "/interns/:internId/features",
      async ({ principal, params, body, set }) => {
        const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
        const definition = declaredFeature(services.features, body.feature);
        const keys = await usable(principal.workspace.id, intern.id);
        checkRequiredConnections(definition, keys);
        const { row, created } = await services.internFeatures.add(intern.id, definition.id);
        set.status = created ? 201 : 200;
        return { data: featureState(row.featureId, row.createdAt, definition, keys) };
      },
      { body: AddFeatureBody },
    )
    .delete("/interns/:internId/features/:featureId", async ({ principal, params }) => {
      const intern = await resolveIntern(services, principal, params.internId, { ownKeyAllowed: false });
      if (!await services.internFeatures.remove(intern.id, params.featureId)) {
        throw new GatewayError("not_found", `Intern has no feature '${params.featureId}'`);
      }
      return { data: { deleted: true as const } };
    });
}
