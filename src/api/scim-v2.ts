import { Elysia } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { scimRoutes } from "./scim-v2-auth.ts";
import { scimGroupsApi } from "./scim-v2-groups.ts";
import { MAX_RESULTS, scimUsersApi } from "./scim-v2-users.ts";
import { GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA } from "./scim-resources.ts";
import type { Services } from "./services.ts";

const CONFIG_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name, type, multiValued: false, required: false, caseExact: false, mutability: "readWrite", returned: "default", uniqueness: "none", ...extra,
});

/** The attributes Roundhouse keeps of each resource (RFC 7643 §7); others an identity provider sends are ignored. */
const SCHEMAS = [
  {
    id: USER_SCHEMA, name: "User", description: "A member of the organization",
    attributes: [
      attribute("userName", "string", { required: true, uniqueness: "server" }),
      attribute("name", "complex", { subAttributes: [attribute("givenName", "string"), attribute("familyName", "string")] }),
      attribute("emails", "complex", { multiValued: true, subAttributes: [attribute("value", "string"), attribute("type", "string"), attribute("primary", "boolean")] }),
      attribute("active", "boolean"),
      attribute("externalId", "string", { caseExact: true }),
    ],
  },
  {
    id: GROUP_SCHEMA, name: "Group", description: "A group of the identity provider, mapped to workspace roles",
    attributes: [
      attribute("displayName", "string", { required: true, uniqueness: "server" }),
      attribute("members", "complex", { multiValued: true, subAttributes: [attribute("value", "string", { mutability: "immutable" }), attribute("display", "string", { mutability: "readOnly" })] }),
      attribute("externalId", "string", { caseExact: true }),
    ],
  },
];

const RESOURCE_TYPES = [
  { id: "User", name: "User", endpoint: "/Users", schema: USER_SCHEMA },
  { id: "Group", name: "Group", endpoint: "/Groups", schema: GROUP_SCHEMA },
];

/**
 * The SCIM 2.0 server (RFC 7643/7644) the identity provider calls with a SCIM token: Users, Groups and
 * the discovery endpoints. Mounted at `/scim/v2`, outside `/api/v1` and its API keys.
 */
export function scimV2Api(services: Services) {
  const discovery = scimRoutes(services, "scim-v2-discovery")
    .get("/ServiceProviderConfig", ({ base }) => ({
      schemas: [CONFIG_SCHEMA],
      documentationUri: "https://www.rfc-editor.org/rfc/rfc7644",
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: MAX_RESULTS },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{ type: "oauthbearertoken", name: "SCIM token", description: "A bearer token created with POST /api/v1/scim/tokens", primary: true }],
      meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` },
    }))
    .get("/ResourceTypes", ({ base }) => ({
      schemas: [LIST_SCHEMA], totalResults: RESOURCE_TYPES.length, startIndex: 1, itemsPerPage: RESOURCE_TYPES.length,
      Resources: RESOURCE_TYPES.map((type) => ({ schemas: [RESOURCE_TYPE_SCHEMA], ...type, meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/${type.id}` } })),
    }))
    .get("/Schemas", ({ base }) => ({
      schemas: [LIST_SCHEMA], totalResults: SCHEMAS.length, startIndex: 1, itemsPerPage: SCHEMAS.length,
      Resources: SCHEMAS.map((schema) => ({ schemas: [SCHEMA_SCHEMA], ...schema, meta: { resourceType: "Schema", location: `${base}/Schemas/${schema.id}` } })),
    }))
    .get("/Schemas/:id", ({ params, base }) => {
      const schema = SCHEMAS.find((candidate) => candidate.id === params.id);
      if (!schema) throw new GatewayError("not_found", "Schema not found");
      return { schemas: [SCHEMA_SCHEMA], ...schema, meta: { resourceType: "Schema", location: `${base}/Schemas/${schema.id}` } };
    });
  return new Elysia({ name: "scim-v2" }).use(discovery).use(scimUsersApi(services)).use(scimGroupsApi(services));
}
