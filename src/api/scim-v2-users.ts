import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { parseScimFilter, scimError } from "../core/scim-filter.ts";
import type { MemberRow } from "../db/schema-people.ts";
import { scimPage, scimRoutes } from "./scim-v2-auth.ts";
import { listJson, type PatchOperation, patchOperations, primaryEmail, scimBoolean, userJson } from "./scim-resources.ts";
import type { Services } from "./services.ts";

/** Most resources a page returns. */
export const MAX_RESULTS = 200;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** A User as the identity provider sends it (RFC 7643 §4.1); unknown attributes are ignored. */
const UserBody = t.Object(
  {
    schemas: t.Optional(t.Array(t.String())),
    userName: t.String({ minLength: 1, maxLength: 320 }),
    externalId: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Null()])),
    name: t.Optional(t.Object({ givenName: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])), familyName: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()])) })),
    emails: t.Optional(t.Array(t.Object({ value: t.String(), type: t.Optional(t.String()), primary: t.Optional(t.Union([t.Boolean(), t.String()])) }))),
    active: t.Optional(t.Union([t.Boolean(), t.String()])),
  },
  { additionalProperties: true },
);

const PatchBody = t.Object({ schemas: t.Optional(t.Array(t.String())), Operations: t.Array(t.Object({ op: t.String(), path: t.Optional(t.String()), value: t.Optional(t.Unknown()) }), { minItems: 1 }) });

/** What SCIM sets of a member. */
interface UserDraft {
  email: string;
  firstName: string | null;
  lastName: string | null;
  externalId: string | null;
  active: boolean;
}

function checkedEmail(value: unknown, field: string): string {
  if (typeof value !== "string" || !EMAIL.test(value.trim())) throw scimError("invalidValue", `${field}: expected an e-mail address`);
  return value.trim();
}

function optionalString(value: unknown, field: string): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value !== "string") throw scimError("invalidValue", `${field}: expected a string`);
  return value;
}

function draftOf(body: typeof UserBody.static): UserDraft {
  return {
    email: checkedEmail(body.userName, "userName"),
    firstName: optionalString(body.name?.givenName, "name.givenName"),
    lastName: optionalString(body.name?.familyName, "name.familyName"),
    externalId: optionalString(body.externalId, "externalId"),
    active: body.active === undefined ? true : scimBoolean(body.active, "active"),
  };
}

/** Sets one attribute of a draft from a PatchOp path (lower-cased); attributes Roundhouse does not keep are ignored. */
function setAttribute(draft: UserDraft, path: string, value: unknown, remove: boolean): void {
  const attribute = path.toLowerCase();
  if (attribute === "active") {
    if (remove) throw scimError("mutability", "active: cannot be removed");
    draft.active = scimBoolean(value, "active");
  } else if (attribute === "username" || attribute === 'emails[type eq "work"].value' || attribute === "emails.value") {
    if (remove) throw scimError("mutability", `${path}: cannot be removed`);
    draft.email = checkedEmail(value, path);
  } else if (attribute === "emails") {
    if (!remove) draft.email = checkedEmail(primaryEmail(value), "emails");
  } else if (attribute === "externalid") {
    draft.externalId = remove ? null : optionalString(value, "externalId");
  } else if (attribute === "name.givenname") {
    draft.firstName = remove ? null : optionalString(value, "name.givenName");
  } else if (attribute === "name.familyname") {
    draft.lastName = remove ? null : optionalString(value, "name.familyName");
  } else if (attribute === "name") {
    const name = (remove ? {} : value) as { givenName?: unknown; familyName?: unknown } | null;
    if (remove || name?.givenName !== undefined) draft.firstName = optionalString(name?.givenName, "name.givenName");
    if (remove || name?.familyName !== undefined) draft.lastName = optionalString(name?.familyName, "name.familyName");
  }
}

/** Applies PatchOp operations to a draft; a path-less add or replace sets each attribute of its value object. */
function applyPatch(draft: UserDraft, operations: PatchOperation[]): void {
  for (const operation of operations) {
    const remove = operation.op === "remove";
    if (operation.path !== undefined) {
      setAttribute(draft, operation.path, operation.value, remove);
      continue;
    }
    if (remove) throw scimError("noTarget", "Operations: a remove needs a path");
    if (operation.value === null || typeof operation.value !== "object" || Array.isArray(operation.value)) {
      throw scimError("invalidValue", "Operations: an operation without a path needs an object value");
    }
    for (const [key, value] of Object.entries(operation.value)) setAttribute(draft, key.replace(/^urn:ietf:params:scim:schemas:core:2\.0:User:/i, ""), value, false);
  }
}

/**
 * The SCIM server's Users: members provisioned by the identity provider. `active: false` and DELETE
 * deprovision at once (keys disabled, sessions ended); reactivation leaves the keys disabled. A user
 * deleted here is a deactivated member that SCIM no longer manages: not found here, but claimed again
 * when the identity provider creates the same userName.
 */
export function scimUsersApi(services: Services) {
  const { members, scim, logger } = services;
  const visible = (row: MemberRow | undefined): MemberRow => {
    if (!row || (!row.active && !row.scimManaged)) throw new GatewayError("not_found", "User not found");
    return row;
  };
  /** Writes a draft to a member, then deprovisions or reactivates it when `active` changed. */
  const save = async (row: MemberRow, draft: UserDraft): Promise<MemberRow> => {
    const { active, ...fields } = draft;
    let saved = (await members.update(row.id, { ...fields, scimManaged: true })) ?? row;
    if (saved.active && !active) {
      saved = (await members.deactivate(row.id)) ?? saved;
      logger.info("scim user deprovisioned", { member_id: row.id });
    } else if (!saved.active && active) {
      saved = (await members.reactivate(row.id)) ?? saved;
      logger.info("scim user reactivated; its keys stay disabled", { member_id: row.id });
    }
    return saved;
  };
  const conflict = (error: unknown): never => {
    if (error instanceof GatewayError && error.code === "conflict") throw new GatewayError("conflict", "A user with this userName already exists", { metadata: { scimType: "uniqueness" } });
    throw error;
  };

  return scimRoutes(services, "scim-v2-users")
    .get("/Users", async ({ query, base }) => {
      const page = scimPage(query, MAX_RESULTS);
      const filter = query.filter ? parseScimFilter(query.filter) : undefined;
      const found = await scim.searchUsers({ ...(filter ? { filter } : {}), offset: page.offset, limit: page.limit });
      return listJson(found.rows.map((row) => userJson(row, base)), found.total, page.startIndex);
    })
    .post(
      "/Users",
      async ({ body, base, set }) => {
        const draft = draftOf(body);
        const existing = await members.findByEmail(draft.email);
        let row: MemberRow;
        if (existing && !existing.active && !existing.scimManaged) {
          row = await save(existing, draft).catch(conflict);
        } else {
          const created = await members.create({ ...draft, scimManaged: true }).catch(conflict);
          row = draft.active ? created : await save(created, draft);
        }
        logger.info("scim user provisioned", { member_id: row.id });
        set.status = 201;
        return userJson(row, base);
      },
      { body: UserBody },
    )
    .get("/Users/:id", async ({ params, base }) => userJson(visible(await members.get(params.id)), base))
    .put(
      "/Users/:id",
      async ({ params, body, base }) => userJson(await save(visible(await members.get(params.id)), draftOf(body)).catch(conflict), base),
      { body: UserBody },
    )
    .patch(
      "/Users/:id",
      async ({ params, body, base }) => {
        const row = visible(await members.get(params.id));
        const draft: UserDraft = { email: row.email, firstName: row.firstName, lastName: row.lastName, externalId: row.externalId, active: row.active };
        applyPatch(draft, patchOperations(body));
        return userJson(await save(row, draft).catch(conflict), base);
      },
      { body: PatchBody },
    )
    .delete("/Users/:id", async ({ params, set }) => {
      const row = visible(await members.get(params.id));
      await members.deactivate(row.id);
      await scim.groups.leaveAll(row.id);
      await members.update(row.id, { scimManaged: false, externalId: null });
      logger.info("scim user deleted: deprovisioned", { member_id: row.id });
      set.status = 204;
      return "";
    });
}
