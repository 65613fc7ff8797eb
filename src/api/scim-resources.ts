import { errorEnvelope, type GatewayError } from "../core/errors.ts";
import { scimError } from "../core/scim-filter.ts";
import type { MemberRow } from "../db/schema-people.ts";
import type { GroupWithMembers } from "../db/scim-groups.ts";

/*
 * SCIM 2.0 resources (RFC 7643) as JSON, the list and error messages (RFC 7644), and the reading of
 * PatchOp requests with the identity providers' variations (Entra's capitalised ops and "True"/"False").
 */

export const SCIM_CONTENT_TYPE = "application/scim+json";
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** Whether a path is served by the SCIM 2.0 server (its errors take SCIM's shape). */
export function isScimPath(path: string): boolean {
  return path === "/scim/v2" || path.startsWith("/scim/v2/");
}

/**
 * A SCIM error (RFC 7644 §3.12: schemas, status as a string, scimType, detail) that also carries the
 * gateway's envelope (`error`, `service_metadata`, `user_id`), so that either kind of client reads it.
 */
export function scimErrorBody(error: GatewayError): Record<string, unknown> {
  const declared = error.metadata?.scimType;
  const scimType = typeof declared === "string" ? declared : error.status === 409 ? "uniqueness" : error.status === 400 ? "invalidValue" : undefined;
  return { schemas: [ERROR_SCHEMA], status: String(error.status), ...(scimType ? { scimType } : {}), detail: error.message, ...errorEnvelope(error) };
}

/** A User resource of a member; `base` is the server's `/scim/v2` URL. */
export function userJson(row: MemberRow, base: string): Record<string, unknown> {
  const name = [row.firstName, row.lastName].filter(Boolean).join(" ");
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    userName: row.email,
    name: { ...(row.firstName !== null ? { givenName: row.firstName } : {}), ...(row.lastName !== null ? { familyName: row.lastName } : {}), ...(name ? { formatted: name } : {}) },
    displayName: name || row.email,
    emails: [{ value: row.email, type: "work", primary: true }],
    active: row.active,
    meta: { resourceType: "User", created: row.createdAt, lastModified: row.updatedAt, location: `${base}/Users/${row.id}` },
  };
}

/** A Group resource. */
export function groupJson(group: GroupWithMembers, base: string, withMembers = true): Record<string, unknown> {
  const { row } = group;
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    displayName: row.displayName,
    ...(row.externalId !== null ? { externalId: row.externalId } : {}),
    ...(withMembers ? { members: group.members.map((member) => ({ value: member.id, display: member.email, $ref: `${base}/Users/${member.id}`, type: "User" })) } : {}),
    meta: { resourceType: "Group", created: row.createdAt, lastModified: row.updatedAt, location: `${base}/Groups/${row.id}` },
  };
}

/** A ListResponse; `startIndex` is 1-based. */
export function listJson(resources: unknown[], total: number, startIndex: number): Record<string, unknown> {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}

/** A boolean as identity providers send it: true/false, or Entra's "True"/"False" strings. */
export function scimBoolean(value: unknown, field: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  throw scimError("invalidValue", `${field}: expected true or false`);
}

/** One PatchOp operation, its op lower-cased and its path's core schema prefix taken off. */
export interface PatchOperation {
  op: "add" | "replace" | "remove";
  path: string | undefined;
  value: unknown;
}

/** Reads a PatchOp request body (RFC 7644 §3.5.2); 400 `invalidSyntax` when it is not one. */
export function patchOperations(body: unknown): PatchOperation[] {
  const operations = (body as { Operations?: unknown } | undefined)?.Operations;
  if (!Array.isArray(operations) || operations.length === 0) throw scimError("invalidSyntax", "Operations: expected a non-empty array of PatchOp operations");
  return operations.map((operation, index) => {
    const { op, path, value } = (operation ?? {}) as { op?: unknown; path?: unknown; value?: unknown };
    const name = typeof op === "string" ? op.toLowerCase() : "";
    if (name !== "add" && name !== "replace" && name !== "remove") throw scimError("invalidSyntax", `Operations[${index}].op: expected add, replace or remove`);
    if (path !== undefined && typeof path !== "string") throw scimError("invalidPath", `Operations[${index}].path: expected a string`);
    if (name !== "remove" && value === undefined) throw scimError("invalidValue", `Operations[${index}].value: required for ${name}`);
    const stripped = path?.replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, "");
    return { op: name, path: stripped === "" ? undefined : stripped, value };
  });
}

/** The e-mail address of a SCIM `emails` value: the primary one, else the work one, else the first. */
export function primaryEmail(emails: unknown): string | undefined {
  if (!Array.isArray(emails)) return undefined;
  const entries = emails.filter((entry): entry is { value: string; type?: unknown; primary?: unknown } => typeof entry?.value === "string");
  return (entries.find((entry) => entry.primary === true || entry.primary === "True") ?? entries.find((entry) => entry.type === "work") ?? entries[0])?.value;
}
