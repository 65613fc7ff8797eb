/**
 * `roundhouse login` as a subprocess against a listening gateway: the test plays the browser (opens the
 * printed URL with a member's session, approves, follows the redirect to the CLI's loopback server), and
 * the key the CLI prints (or writes with mode 0600) makes a real inference call.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/gateway.ts";
import { type InferenceSetup, startInference } from "./helpers/inference-setup.ts";
import { consent, signedInMember } from "./helpers/oauth.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
let setup: InferenceSetup;
let cookie: string;
const dir = tempDir();

beforeAll(async () => {
  setup = await startInference();
  const workspaceId = (await (await setup.admin("GET", "/key")).json()).data.workspace_id;
  cookie = (await signedInMember(setup.gateway.services, workspaceId, "cli@example.com")).cookie;
});

afterAll(async () => {
  await setup.stop();
  dir.remove();
});

/** Starts `roundhouse login`, waits for the URL it prints, and returns it with the running child. */
async function startLogin(extra: string[]) {
  const child = Bun.spawn([process.execPath, MAIN, "login", "--url", setup.gateway.url, "--no-browser", "--timeout", "20", ...extra], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = child.stderr.getReader();
  let text = "";
  for (;;) {
    const match = /(http:\/\/\S+\/auth\?\S+)/.exec(text);
    if (match) {
      const seen = text;
      const rest = async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return text;
          text += new TextDecoder().decode(value);
        }
      };
      return { child, url: match[1]!, stderr: seen, rest };
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`login exited before printing a URL: ${text}`);
    text += new TextDecoder().decode(value);
  }
}

/** Approves (or denies) in the test's "browser" and delivers the redirect to the CLI's callback. */
async function answerConsent(url: string, decision: "allow" | "deny"): Promise<void> {
  const answer = await consent(url, cookie, { decision });
  expect(answer.status).toBe(302);
  const callback = await fetch(answer.headers.get("location")!);
  expect(callback.status).toBe(200);
}

describe("roundhouse login", () => {
  test("prints a key that works, after consent over HTTP", async () => {
    const { child, url } = await startLogin([]);
    expect(new URL(url).searchParams.get("code_challenge_method")).toBe("S256");
    expect(new URL(url).searchParams.get("callback_url")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await answerConsent(url, "allow");
    expect(await child.exited).toBe(0);
    const key = (await new Response(child.stdout).text()).trim();
    expect(key).toStartWith("sk-rh-v1-");
    const response = await setup.post("/chat/completions", { model: "test/gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }, key);
    expect(response.status).toBe(200);
  }, 30_000);

  test("--output writes the key with mode 0600 and prints nothing on stdout", async () => {
    const file = join(dir.path, "key.txt");
    const { child, url } = await startLogin(["--output", file, "--key-label", "laptop"]);
    await answerConsent(url, "allow");
    expect(await child.exited).toBe(0);
    expect((await new Response(child.stdout).text()).trim()).toBe("");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = (await Bun.file(file).text()).trim();
    const me = await fetch(`${setup.api}/key`, { headers: { authorization: `Bearer ${key}` } });
    expect((await me.json()).data.label).toBeString();
    const hash = new Bun.CryptoHasher("sha256").update(key).digest("hex");
    expect((await (await setup.admin("GET", `/keys/${hash}`)).json()).data.name).toBe("laptop");
  }, 30_000);

  test("a denied consent exits 1 and prints no key", async () => {
    const { child, url, rest } = await startLogin([]);
    await answerConsent(url, "deny");
    expect(await child.exited).toBe(1);
    expect((await new Response(child.stdout).text()).trim()).toBe("");
    expect(await rest()).toContain("access_denied");
  }, 30_000);

  test("--help, and bad usage exits 2", async () => {
    const help = Bun.spawn([process.execPath, MAIN, "login", "--help"], { stdout: "pipe", stderr: "pipe" });
    expect(await help.exited).toBe(0);
    expect(await new Response(help.stdout).text()).toContain("roundhouse login --url");
    const child = Bun.spawn([process.execPath, MAIN, "login", "--url", "ftp://x"], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ROUNDHOUSE_URL: "" } });
    expect(await child.exited).toBe(2);
  });
});
