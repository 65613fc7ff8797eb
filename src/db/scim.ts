import { and, asc, count, eq, or } from "drizzle-orm";
import type { ScimFilter } from "../core/scim-filter.ts";
import type { Backend } from "./backend.ts";
import type { Page } from "./members.ts";
import type { MemberRow } from "./schema-people.ts";
import { ScimGroupStore } from "./scim-groups.ts";
import { ScimMappingStore } from "./scim-mappings.ts";
import { type FieldMap, filterCondition } from "./scim-query.ts";
import { ScimTokenStore } from "./scim-tokens.ts";

/**
 * SCIM provisioning's storage: the identity provider's tokens, its groups, the group mappings, and
 * the search of members by a SCIM filter (members themselves are MembersStore's).
 */
export class ScimStore {
  readonly tokens: ScimTokenStore;
  readonly groups: ScimGroupStore;
  readonly mappings: ScimMappingStore;

  constructor(private readonly backend: Backend) {
    this.tokens = new ScimTokenStore(backend);
    this.groups = new ScimGroupStore(backend);
    this.mappings = new ScimMappingStore(backend);
  }

  /**
   * Members in creation order matching a SCIM User filter (userName, externalId, emails, name, active,
   * id, meta). A member deleted through SCIM (inactive and no longer SCIM-managed) is not listed.
   */
  async searchUsers(options: { filter?: ScimFilter; offset: number; limit: number }): Promise<Page<MemberRow>> {
    const { members } = this.backend.tables;
    const visible = or(eq(members.active, true), eq(members.scimManaged, true));
    const where = and(visible, options.filter ? filterCondition(options.filter, this.userFields()) : undefined);
    const rows = await this.backend.db.select().from(members).where(where).orderBy(asc(members.createdAt), asc(members.id)).limit(options.limit).offset(options.offset);
    const [total] = await this.backend.db.select({ n: count() }).from(members).where(where);
    return { rows, total: Number(total?.n ?? 0) };
  }

  private userFields(): FieldMap {
    const { members } = this.backend.tables;
    const email = { column: members.email, type: "string" } as const;
    return {
      id: { column: members.id, type: "string", caseExact: true },
      username: email,
      externalid: { column: members.externalId, type: "string", caseExact: true },
      emails: email,
      "emails.value": email,
      // The one address a member has is its work address, and its primary one.
      "emails.type": { constant: "work" },
      "emails.primary": { constant: true },
      "name.givenname": { column: members.firstName, type: "string" },
      "name.familyname": { column: members.lastName, type: "string" },
      active: { column: members.active, type: "boolean" },
      "meta.created": { column: members.createdAt, type: "date" },
      "meta.lastmodified": { column: members.updatedAt, type: "date" },
    };
  }
}
