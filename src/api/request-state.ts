import type { KeyKind } from "../core/api-key.ts";
import type { GuardrailPolicy } from "../core/guardrails.ts";
import type { WorkspaceBudgets } from "../core/ledgers.ts";
import type { ApiKeyRow, WorkspaceRow } from "../db/schema.ts";
import type { MemberRow, MemberSessionRow } from "../db/schema-people.ts";

/** Who a request authenticated as. */
export interface Principal {
  key: ApiKeyRow;
  kind: KeyKind;
  workspace: WorkspaceRow;
  internId: string | null;
  /** For an inference key: the guardrails that apply to it (its workspace's default, then its own). */
  guardrails?: GuardrailPolicy[];
  /** The signed-in member, when the request authenticated with a member's session cookie. */
  member?: MemberRow;
  /** The session, when the request authenticated with a session cookie instead of a bearer key. */
  session?: MemberSessionRow;
  /** For an inference key: its workspace's interval budgets and whether they count BYOK spend. */
  workspaceBudgets?: WorkspaceBudgets;
}

/**
 * Who performed an action, for the audit log: a key (its hash), a signed-in member (its id), a SCIM
 * token (its id), or nobody known (a refused sign-in). Set by routes that authenticate without a
 * principal (SCIM, sign-in); otherwise taken from the principal.
 */
export interface Actor {
  kind: "key" | "member" | "scim-token" | "anonymous";
  id: string | null;
}

/**
 * What a route tells the audit log beyond its path and principal: what it acted on when no route
 * parameter names it (a consent's decision), and the workspace concerned when no principal has one.
 * Never a code, token or other secret.
 */
export interface AuditDetail {
  target?: string;
  workspaceId?: string | null;
}

/** What a handler learned about its request that the access log reports (inference: model, provider, generation). */
export interface RequestNote {
  model?: string;
  provider?: string;
  /** The generation the request made: its record (GET /generation) carries this request's id. */
  generationId?: string;
}

/**
 * What the edge learns about one request on its way through the hooks: when it started, its id, who
 * it authenticated as, the handler's note. One entry per request rather than one map per concern.
 */
export interface RequestState {
  started: number | undefined;
  requestId: string | undefined;
  principal: Principal | undefined;
  note: RequestNote | undefined;
  /** Set when the request's actor is not its principal's key or member (see Actor). */
  actor?: Actor | undefined;
  /** Set by a route whose audit entry names more than its path says (see AuditDetail). */
  audit?: AuditDetail | undefined;
  /** The TCP peer's address, taken on arrival (the server forgets it once the response is out). */
  peer?: string | undefined;
}

const states = new WeakMap<Request, RequestState>();

/** The request's state, created empty on first use. */
export function requestState(request: Request): RequestState {
  let state = states.get(request);
  if (state === undefined) {
    state = { started: undefined, requestId: undefined, principal: undefined, note: undefined };
    states.set(request, state);
  }
  return state;
}

/** The request's state if anything was recorded about it. */
export function existingState(request: Request): RequestState | undefined {
  return states.get(request);
}
