/*
 * The sign-in pages: small server-rendered HTML with no external assets (the gateway may run on a
 * network without the internet). Every dynamic value is escaped.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** HTML-escapes text for an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}form{margin:1.5rem 0}input,button,a.button{font:inherit;padding:.55rem .8rem;border-radius:6px}
input{width:100%;box-sizing:border-box;border:1px solid #bbb;margin:.4rem 0}button,a.button{border:0;background:#2456c9;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
.error{background:#fdecea;border:1px solid #f5c2bd;padding:.7rem;border-radius:6px}hr{border:0;border-top:1px solid #ddd;margin:2rem 0}`;

/*
 * Referrer policy same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with
 * the key form's POST, which the login-CSRF check must refuse. No icon request either (data: URL).
 */
function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><link rel="icon" href="data:,"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** What the sign-in page shows: the SSO button when an issuer is configured, and an error to show. */
export interface SignInPageOptions {
  issuer: string | undefined;
  returnTo: string | undefined;
  error?: string;
}

/** The sign-in page: "Sign in with <issuer>" (when SSO is on) and the management-key form. */
export function signInPage(options: SignInPageOptions): string {
  const query = options.returnTo ? `?return_to=${encodeURIComponent(options.returnTo)}` : "";
  const error = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : "";
  const sso = options.issuer
    ? `<p><a class="button" id="sso" href="/session/oidc/start${escapeHtml(query)}">Sign in with ${escapeHtml(options.issuer)}</a></p><hr>`
    : "";
  const returnTo = options.returnTo ? `<input type="hidden" name="return_to" value="${escapeHtml(options.returnTo)}">` : "";
  const form = `<form method="post" action="/session/key"><label for="key">Management key</label><input id="key" name="key" type="password" autocomplete="off" required>${returnTo}<button type="submit">Sign in with a management key</button></form>`;
  return page("Sign in to Roundhouse", `<h1>Sign in to Roundhouse</h1>${error}${sso}${form}`);
}

/** A refused sign-in: what went wrong (never a token or secret) and a way back to the sign-in page. */
export function refusalPage(message: string): string {
  return page("Sign-in refused", `<h1>Sign-in refused</h1><p class="error" role="alert">${escapeHtml(message)}</p><p><a href="/session/sign-in">Back to sign-in</a></p>`);
}
