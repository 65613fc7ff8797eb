/**
 * The dashboard's client of the gateway's public API: same-origin fetches with the session cookie,
 * the CSRF token on state-changing requests and the selected workspace; failures carry the message of
 * the spec's error envelope.
 */

/** The signed-in session, as `GET /session` answers it. */
export interface Session {
  kind: string;
  member: { id: string; email: string; first_name: string | null; last_name: string | null; role: string } | null;
  workspaces: Array<{ id: string; name: string; slug: string | null; role: string }>;
  deployment_admin: boolean;
  csrf_token: string;
  expires_at: string;
}

/** A refused or failed API call: its HTTP status and the envelope's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const state: { csrf: string; workspace: string | undefined } = { csrf: "", workspace: undefined };

/** Where a signed-out browser goes. */
export const SIGN_IN = "/session/sign-in?return_to=/";

/** Sends the browser to the sign-in page. */
export function goToSignIn(): void {
  location.assign(SIGN_IN);
}

/** The current session, or undefined when signed out. */
export async function loadSession(): Promise<Session | undefined> {
  const response = await fetch("/session", { credentials: "same-origin" });
  if (response.status === 401) return undefined;
  if (!response.ok) throw new ApiError(response.status, await messageOf(response));
  const session = (await response.json()) as Session;
  state.csrf = session.csrf_token;
  return session;
}

/** Selects the workspace later calls act in (sent as x-roundhouse-workspace). */
export function selectWorkspace(id: string | undefined): void {
  state.workspace = id;
}

/** The workspace calls act in. */
export function currentWorkspace(): string | undefined {
  return state.workspace;
}

async function messageOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {}
  return `${response.status} ${response.statusText || "request failed"}`;
}

/**
 * Calls the API with a JSON body (if any) and returns the JSON answer; 401 sends the browser to sign in.
 * The call acts in the selected workspace unless `workspace` names another of the session's.
 */
export async function api<T>(method: string, path: string, body?: unknown, workspace = state.workspace): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && method !== "HEAD") headers["x-csrf-token"] = state.csrf;
  if (workspace) headers["x-roundhouse-workspace"] = workspace;
  const response = await fetch(path, { method, headers, credentials: "same-origin", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (response.status === 401) goToSignIn();
  if (!response.ok) throw new ApiError(response.status, await messageOf(response));
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Ends the session and returns to the sign-in page. */
export async function signOut(): Promise<void> {
  await fetch("/session/sign-out", { method: "POST", headers: { "x-csrf-token": state.csrf }, credentials: "same-origin" });
  goToSignIn();
}
