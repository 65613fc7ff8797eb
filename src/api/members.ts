import { Elysia } from "elysia";
import { memberGuardrailsApi } from "./member-guardrails.ts";
import { organizationApi } from "./organization.ts";
import type { Services } from "./services.ts";
import { workspaceMembersApi } from "./workspace-members.ts";

/** The member-facing management routes: the organization's directory, workspace memberships and member guardrails. */
export function membersApi(services: Services) {
  return new Elysia({ name: "members-api" }).use(organizationApi(services)).use(workspaceMembersApi(services)).use(memberGuardrailsApi(services));
}
