import { Elysia } from "elysia";
import { GatewayError } from "../core/errors.ts";
import { type DashboardFile, dashboardFiles } from "./dashboard-bundle.ts";

/** The dashboard's Content-Security-Policy: only its own scripts, styles and API; no frames, no foreign forms. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function serve(file: DashboardFile, cache: string): Response {
  return new Response(file.body, {
    headers: {
      "content-type": file.type,
      "content-security-policy": DASHBOARD_CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": cache,
    },
  });
}

/**
 * The embedded web dashboard: its page at `/` (no key needed: the app signs in through /session) and
 * its hashed assets at `/assets/*`. It calls only the public API.
 */
export function dashboardApi() {
  return new Elysia({ name: "dashboard" })
    .get("/", async () => serve((await dashboardFiles()).get("/index.html")!, "no-cache"), { detail: { hide: true } })
    .get(
      "/assets/*",
      async ({ request }) => {
        const path = new URL(request.url).pathname;
        const file = (await dashboardFiles()).get(path);
        if (!file) throw new GatewayError("not_found", `No dashboard asset ${path}`);
        // Names carry their content's hash: a file never changes under its name.
        return serve(file, "public, max-age=31536000, immutable");
      },
      { detail: { hide: true } },
    );
}
