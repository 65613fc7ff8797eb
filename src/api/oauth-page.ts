import type { WorkspaceRow } from "../db/schema.ts";

/** What the consent page shows and carries through its form. */
export interface ConsentView {
  /** The app's name (the callback's host) and the callback's origin. */
  appName: string;
  origin: string;
  /** Who consents: a member's e-mail address, or the management key's name. */
  signedInAs: string;
  workspaces: WorkspaceRow[];
  csrfToken: string;
  /** The authorization request's parameters, posted back unchanged. */
  fields: Record<string, string | undefined>;
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

/**
 * The headers of the consent page: no external assets, no scripts, never framed (clickjacking), never
 * cached, and the form may only post here (a redirect on to the app's callback is allowed).
 */
export function consentHeaders(origin: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${origin}; frame-ancestors 'none'; base-uri 'none'`,
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
  };
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}select,button{font-size:1rem;padding:.4rem .8rem;margin:.3rem .3rem .3rem 0}
.app{font-weight:600}.muted{color:#666;font-size:.9rem}`;

/** The consent page: the app asking, the workspace picker, Allow and Deny. */
export function renderConsentPage(view: ConsentView): string {
  const hidden = Object.entries(view.fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("\n    ");
  const options = view.workspaces
    .map((workspace) => `<option value="${escapeHtml(workspace.id)}">${escapeHtml(workspace.name)} (${escapeHtml(workspace.slug)})</option>`)
    .join("\n      ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize ${escapeHtml(view.appName)} - Roundhouse</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Authorize <span class="app">${escapeHtml(view.appName)}</span></h1>
<p><span class="app">${escapeHtml(view.origin)}</span> asks for an API key of its own. The key can make inference requests in the
workspace you choose, and is charged to you.</p>
<p class="muted">Signed in as ${escapeHtml(view.signedInAs)}.</p>
<form method="post" action="/auth">
    <input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
    ${hidden}
    <label for="workspace_id">Workspace</label>
    <select id="workspace_id" name="workspace_id">
      ${options}
    </select>
    <div>
      <button type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny">Deny</button>
    </div>
</form>
</body>
</html>
`;
}
