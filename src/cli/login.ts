import { chmodSync, writeFileSync } from "node:fs";
import { newCodeVerifier, s256Challenge } from "../core/pkce.ts";
import { noPositionals, parseCommand, parseInteger } from "./args.ts";
import { CliError, printError, printLine, UsageError } from "./output.ts";

export const LOGIN_HELP = `Usage: roundhouse login --url GATEWAY_URL [--output FILE] [--timeout SECONDS] [--no-browser]

Obtains a personal API key from a running gateway through its sign-in and consent page (OAuth with
PKCE): starts a one-shot HTTP server on 127.0.0.1, prints the gateway's /auth URL (and tries to open it
in a browser), waits for the consent to come back, exchanges the code and prints the key on stdout.

Options:
  --url URL                 the gateway's base URL, e.g. https://gateway.example.com (env ROUNDHOUSE_URL)
  --output FILE             write the key to FILE (mode 0600) instead of printing it
  --timeout SECONDS         how long to wait for the consent (default 300)
  --key-label LABEL         a name for the issued key (default: the callback's name)
  --no-browser              only print the URL; do not try xdg-open
  -h, --help                show this help

Exit codes: 0 key obtained, 1 consent denied, timed out or exchange refused, 2 bad usage.`;

/** What the loopback server heard back: a code, or the consent page's error. */
type Callback = { code: string } | { error: string };

/** A loopback server on a free port that resolves with the first callback it receives. */
function awaitCallback(): { port: number; received: Promise<Callback>; stop(): Promise<void> } {
  let settle!: (callback: Callback) => void;
  const received = new Promise<Callback>((resolve) => (settle = resolve));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/callback") return new Response("Not found", { status: 404 });
      const code = url.searchParams.get("code");
      const error = url.searchParams.get("error");
      if (!code && !error) return new Response("Missing code", { status: 400 });
      settle(code ? { code } : { error: error! });
      const text = code ? "Signed in: you can close this tab and return to the terminal." : `Not authorized (${error}). You can close this tab.`;
      return new Response(`<!doctype html><meta charset="utf-8"><title>Roundhouse login</title><p>${text}</p>`, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    },
  });
  // Stopping lets the answer to the browser finish first.
  return { port: server.port!, received, stop: () => server.stop() };
}

/** Tries to open `url` in the desktop's browser; silently does nothing where there is none. */
function tryOpen(url: string): void {
  try {
    const child = Bun.spawn(["xdg-open", url], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    child.unref();
  } catch {
    // No xdg-open: the printed URL is enough.
  }
}

function gatewayUrl(raw: string | undefined): URL {
  const url = raw ? URL.parse(raw) : null;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw new UsageError("--url must be the gateway's http(s) base URL, e.g. https://gateway.example.com", "login");
  return url;
}

/** `roundhouse login`: the OAuth PKCE flow from a terminal. */
export async function login(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseCommand("login", argv, {
    url: { type: "string" },
    output: { type: "string" },
    timeout: { type: "string" },
    "key-label": { type: "string" },
    "no-browser": { type: "boolean" },
  });
  if (values.help) return printLine(LOGIN_HELP);
  noPositionals("login", positionals);
  const base = gatewayUrl(values.url ?? process.env.ROUNDHOUSE_URL);
  const timeoutMs = parseInteger("login", "timeout", values.timeout ?? "300", 1, 86_400) * 1000;

  const verifier = newCodeVerifier();
  const listener = awaitCallback();
  try {
    const authorize = new URL("/auth", base);
    authorize.searchParams.set("callback_url", `http://127.0.0.1:${listener.port}/callback`);
    authorize.searchParams.set("code_challenge", s256Challenge(verifier));
    authorize.searchParams.set("code_challenge_method", "S256");
    if (values["key-label"]) authorize.searchParams.set("key_label", values["key-label"]);
    printError(`Open this URL in a browser to sign in and approve the key:\n\n  ${authorize.href}\n`);
    if (!values["no-browser"]) tryOpen(authorize.href);

    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CliError(`no consent within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    const callback = await Promise.race([listener.received, timedOut]).finally(() => clearTimeout(timer));
    if ("error" in callback) throw new CliError(`the gateway did not authorize the key: ${callback.error}`);

    const exchanged = await fetch(new URL("/api/v1/auth/keys", base), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: callback.code, code_verifier: verifier, code_challenge_method: "S256" }),
    });
    const answer = (await exchanged.json().catch(() => ({}))) as { key?: string; error?: { message?: string } };
    if (!exchanged.ok || typeof answer.key !== "string") {
      throw new CliError(`the code exchange failed: ${exchanged.status} ${answer.error?.message ?? ""}`.trim());
    }
    if (values.output) {
      writeFileSync(values.output, `${answer.key}\n`, { mode: 0o600 });
      chmodSync(values.output, 0o600);
      printError(`Key written to ${values.output}`);
    } else {
      printLine(answer.key);
    }
  } finally {
    await listener.stop();
  }
}
