/**
 * Drives the OAuth consent page over HTTP as a browser would: a signed-in member's session cookie,
 * the page's CSRF token and hidden fields posted back, the redirect read (not followed).
 */
import type { Services } from "../../src/services.ts";
import { SESSION_COOKIE } from "../../src/api/session-cookie.ts";

/** A member of `workspaceId` with a live session: its id and the Cookie header value. */
export async function signedInMember(services: Services, workspaceId: string, email: string): Promise<{ memberId: string; cookie: string }> {
  const member = await services.members.create({ email });
  await services.members.addToWorkspace(workspaceId, member.id, "member");
  const { token } = await services.sessions.open({ kind: "oidc", memberId: member.id });
  return { memberId: member.id, cookie: `${SESSION_COOKIE}=${encodeURIComponent(token)}` };
}

const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** The consent page's form: its hidden fields and the workspace ids it offers. */
export function readConsentForm(html: string): { fields: Record<string, string>; workspaceIds: string[] } {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescape(match[1]!)] = unescape(match[2]!);
  const workspaceIds = [...html.matchAll(/<option value="([^"]*)">/g)].map((match) => unescape(match[1]!));
  return { fields, workspaceIds };
}

/**
 * Opens `authUrl` with `cookie`, then posts the page's form with `decision` (and `workspace_id`, default
 * the first offered; `drop` removes fields, e.g. the CSRF token). Returns the POST's answer.
 */
export async function consent(
  authUrl: string,
  cookie: string,
  options: { decision?: "allow" | "deny"; workspaceId?: string; drop?: string[] } = {},
): Promise<Response> {
  const page = await fetch(authUrl, { headers: { cookie }, redirect: "manual" });
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${await page.text()}`);
  const { fields, workspaceIds } = readConsentForm(await page.text());
  const form = new URLSearchParams({ ...fields, workspace_id: options.workspaceId ?? workspaceIds[0] ?? "", decision: options.decision ?? "allow" });
  for (const name of options.drop ?? []) form.delete(name);
  return fetch(new URL("/auth", authUrl), {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    redirect: "manual",
  });
}

/** The `code` of a consent's redirect to the callback. */
export function codeOf(answer: Response): string {
  const location = answer.headers.get("location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (answer.status !== 302 || !code) throw new Error(`expected a redirect with a code, got ${answer.status} ${location}`);
  return code;
}
