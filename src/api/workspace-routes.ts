import type { TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { KeyKind } from "../core/api-key.ts";
import { GatewayError } from "../core/errors.ts";
import { authenticate, type Principal, requireWorkspaceRoute } from "./auth.ts";
import type { Services } from "./services.ts";

/** Every kind of key that acts for its workspace: an intern's key is confined to its intern. */
export const ANY_WORKSPACE_KEY: KeyKind[] = ["management", "inference"];

/**
 * A plugin for routes over the caller's workspace: every request is authenticated, must come from a
 * key of one of `kinds` (management only by default; see requireWorkspaceRoute) and hands its
 * principal to the handlers.
 */
export function workspaceRoutes<const Prefix extends string = "">(services: Services, config: { name: string; prefix?: Prefix }, kinds?: KeyKind[]) {
  return new Elysia<Prefix>(config).derive(async ({ request }) => {
    const principal = await authenticate(services, request);
    requireWorkspaceRoute(principal, kinds);
    return { principal };
  });
}

/** A workspace named in a request (by id or slug) must be the key's own: another workspace is not found. */
export function checkWorkspace(principal: Principal, workspaceId: string | undefined): void {
  if (workspaceId !== undefined && workspaceId !== principal.workspace.id && workspaceId !== principal.workspace.slug) {
    throw new GatewayError("not_found", "Workspace not found");
  }
}

/** The paging of a list route (parsePage): offset from 0, limit 1 to 100, 50 when not given. */
export const LIST_PAGE = { defaultLimit: 50, maxLimit: 100 };

/** The response of a list route: one page of `item`s and how many there are in all. */
export function listOf<Item extends TSchema>(item: Item) {
  return t.Object({ data: t.Array(item), total_count: t.Integer() });
}
