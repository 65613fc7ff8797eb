import type { SsoConfig } from "../config/schema.ts";
import type { MemberRow, WorkspaceRole } from "../db/schema-people.ts";
import { type SignedInIdentity, SignInRefused } from "../security/oidc-relying-party.ts";
import type { Services } from "./services.ts";

/** The stored subject of an identity: issuer and subject, so two providers' subjects never collide. */
export function subjectOf(identity: SignedInIdentity): string {
  return `${identity.issuer} ${identity.subject}`;
}

/** The groups an identity's claim lists (a list of strings, or one string). */
export function groupsOf(identity: SignedInIdentity, claim: string): Set<string> {
  const value = identity.claims[claim];
  if (typeof value === "string") return new Set([value]);
  if (Array.isArray(value)) return new Set(value.filter((item): item is string => typeof item === "string"));
  return new Set();
}

function claimText(identity: SignedInIdentity, name: string): string | null {
  const value = identity.claims[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 256) : null;
}

/**
 * The member an identity signs in as: found by subject, else by a verified e-mail address (and
 * linked to the subject), else created just in time. An inactive member is refused.
 */
async function findOrCreateMember(services: Services, identity: SignedInIdentity): Promise<MemberRow> {
  const subject = subjectOf(identity);
  let member = await services.members.findBySubject(subject);
  if (!member) {
    const email = claimText(identity, "email");
    if (email === null) throw new SignInRefused("Sign-in refused: the identity provider sent no email claim (request the email scope)", 403);
    if (identity.claims.email_verified === false) throw new SignInRefused("Sign-in refused: the identity provider marks this email address as unverified", 403);
    const known = await services.members.findByEmail(email);
    if (known && known.oidcSubject !== null) throw new SignInRefused("Sign-in refused: this email address belongs to a member linked to another identity", 403);
    member = known
      ? ((await services.members.update(known.id, { oidcSubject: subject })) ?? known)
      : await services.members.create({ email, firstName: claimText(identity, "given_name"), lastName: claimText(identity, "family_name"), oidcSubject: subject });
  }
  if (!member.active) throw new SignInRefused("Sign-in refused: this member is deactivated", 403);
  return member;
}

/** The workspace roles the groups grant: the stronger role wins when several mappings name one workspace. */
async function grantedRoles(services: Services, sso: SsoConfig, groups: Set<string>): Promise<Map<string, WorkspaceRole>> {
  const granted = new Map<string, WorkspaceRole>();
  for (const mapping of sso.workspace_groups) {
    if (!groups.has(mapping.group)) continue;
    const workspace = await services.workspaces.find(mapping.workspace);
    if (!workspace) {
      services.logger.warn("sso: a workspace_groups mapping names no workspace", { workspace: mapping.workspace });
      continue;
    }
    if (granted.get(workspace.id) !== "admin") granted.set(workspace.id, mapping.role);
  }
  return granted;
}

/**
 * Brings a member's `sso` memberships and organization role in line with its groups: memberships the
 * groups grant are added or changed, `sso` memberships they no longer grant are removed; memberships
 * granted by hand or by SCIM are left alone. With `admin_groups` set, a non-owner member is an
 * organization admin exactly when it is in one of them.
 */
async function syncGroups(services: Services, sso: SsoConfig, member: MemberRow, groups: Set<string>): Promise<MemberRow> {
  const granted = await grantedRoles(services, sso, groups);
  const current = await services.members.membershipsOf(member.id);
  for (const membership of current) {
    if (membership.source === "sso" && !granted.has(membership.workspaceId)) await services.members.removeFromWorkspace(membership.workspaceId, [member.id]);
  }
  for (const [workspaceId, role] of granted) {
    const existing = current.find((membership) => membership.workspaceId === workspaceId);
    if (existing && existing.source !== "sso") continue;
    if (existing?.role !== role) await services.members.addToWorkspace(workspaceId, member.id, role, "sso");
  }
  if (sso.admin_groups.length === 0 || member.role === "owner") return member;
  const role = sso.admin_groups.some((group) => groups.has(group)) ? "admin" : "member";
  return role === member.role ? member : ((await services.members.update(member.id, { role })) ?? member);
}

/** Provisions the member of a verified identity at sign-in (just in time) and syncs its group memberships. */
export async function provisionMember(services: Services, sso: SsoConfig, identity: SignedInIdentity): Promise<MemberRow> {
  const member = await findOrCreateMember(services, identity);
  return syncGroups(services, sso, member, groupsOf(identity, sso.groups_claim));
}
