import { Elysia } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { extractPresetContent, type RequestStyle } from "../core/preset-config.ts";
import type { Services } from "./services.ts";
import { authenticate, type Principal, requireWorkspaceRoute } from "./auth.ts";
import { parsePage } from "./http.ts";
import { ChatRequest } from "./schemas/chat-request.ts";
import { checkMessagesRules, MessagesRequest } from "./schemas/messages-request.ts";
import { checkPluginLimits, PLUGIN_IDS } from "../plugins/schemas.ts";
import { ResponsesRequest } from "./schemas/responses-request.ts";
import { presetJson, presetVersionJson, presetWithVersionJson } from "./serialize.ts";

/**
 * URL-safe: RFC 3986 unreserved characters only, and not the dot segments `.` and `..`, which URL
 * normalisation removes (a client could never address such a preset again).
 */
const SLUG = /^(?!\.\.?$)[A-Za-z0-9._~-]{1,256}$/;

function checkSlug(slug: string): string {
  if (!SLUG.test(slug)) {
    throw new GatewayError(
      "bad_request",
      "slug: must be 1 to 256 URL-safe characters (letters, digits, '-', '.', '_', '~'), and not '.' or '..'",
    );
  }
  return slug;
}

function creatorOf(principal: Principal): string {
  return principal.key.creatorUserId ?? principal.key.hash;
}

/**
 * Presets of the caller's workspace. `POST /presets/{slug}/{style}` stores the preset-relevant part of
 * an inference body as a new designated version (creating the preset on first use); it runs nothing.
 */
export function presetsApi(services: Services) {
  const create = (style: RequestStyle) => async (context: { principal: Principal; params: { slug: string }; body: unknown }) => {
    const slug = checkSlug(context.params.slug);
    const body = context.body as Record<string, unknown>;
    const problem = checkPluginLimits(body.plugins) ?? (style === "messages" ? checkMessagesRules(body) : null);
    if (problem) throw new GatewayError("bad_request", problem);
    // Plugins the spec lists are checked by the request schema; any other id must be an installed
    // plugin, with a config its schema accepts.
    const others = ((body.plugins ?? []) as Array<Record<string, unknown>>).filter(
      (plugin) => !(PLUGIN_IDS as readonly string[]).includes(String(plugin.id)),
    );
    services.plugins.resolve(others);
    const content = extractPresetContent(style, body);
    const { preset, version } = await services.presets.createVersion(
      context.principal.workspace.id,
      slug,
      content,
      creatorOf(context.principal),
    );
    return { data: presetWithVersionJson(preset, version) };
  };

  const find = async (principal: Principal, slug: string) => {
    const found = await services.presets.get(principal.workspace.id, checkSlug(slug));
    if (!found) throw new GatewayError("not_found", `Preset '${slug}' not found`);
    return found;
  };

  return new Elysia({ name: "presets-api", prefix: "/presets" })
    .derive(async ({ request }) => {
      const principal = await authenticate(services, request);
      requireWorkspaceRoute(principal);
      return { principal };
    })
    .post("/:slug/responses", create("responses"), { body: ResponsesRequest })
    .post("/:slug/chat/completions", create("chat"), { body: ChatRequest })
    .post("/:slug/messages", create("messages"), { body: MessagesRequest })
    .get("/", async ({ principal, query }) => {
      const page = parsePage(query, { defaultLimit: 50, maxLimit: 100 });
      const { rows, total } = await services.presets.list(principal.workspace.id, page.offset, page.limit);
      return { data: rows.map(presetJson), total_count: total };
    })
    .get("/:slug", async ({ principal, params }) => {
      const { preset, version } = await find(principal, params.slug);
      return { data: presetWithVersionJson(preset, version) };
    })
    .get("/:slug/versions", async ({ principal, params, query }) => {
      const { preset } = await find(principal, params.slug);
      const page = parsePage(query, { defaultLimit: 50, maxLimit: 100 });
      const { rows, total } = await services.presets.versions(preset.id, page.offset, page.limit);
      return { data: rows.map(presetVersionJson), total_count: total };
    })
    .get("/:slug/versions/:version", async ({ principal, params }) => {
      const { preset } = await find(principal, params.slug);
      if (!/^\d{1,9}$/.test(params.version) || Number(params.version) < 1) {
        throw new GatewayError("bad_request", "version: must be a positive integer");
      }
      const version = await services.presets.version(preset.id, Number(params.version));
      if (!version) throw new GatewayError("not_found", `Preset '${preset.slug}' has no version ${params.version}`);
      return { data: presetVersionJson(version) };
    });
}
