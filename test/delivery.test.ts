/**
 * Delivery, as an operator meets it: `version`, the start-up lines and `/`, draining on SIGTERM
 * (`/readyz` answers 503 until the last stream ends, and the container's health check says so), and the
 * systemd units and Containerfile in deploy/, which the README shows verbatim.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { INFERENCE_KEY, spawnGateway } from "./helpers/child-gateway.ts";
import { tempDir } from "./helpers/gateway.ts";
import { startOpenAiUpstream } from "./helpers/upstreams.ts";

const ROOT = join(import.meta.dir, "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const deployFile = (name: string) => readFileSync(join(ROOT, "deploy", name), "utf8");
const dir = tempDir("roundhouse-delivery-");
afterAll(() => dir.remove());

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, "src/main.ts", ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

describe("version", () => {
  test("--version and version print the version, the checkout's commit and 'from source'; --json and --help too", async () => {
    const git = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: ROOT });
    const commit = git.exitCode === 0 ? git.stdout.toString().trim() : "unknown";
    const line = `roundhouse ${packageJson.version} (commit ${commit}, built from source)\n`;
    for (const args of [["--version"], ["-v"], ["version"]]) expect(await cli(args)).toEqual({ code: 0, stdout: line, stderr: "" });
    const json = await cli(["version", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual({ version: packageJson.version, commit, date: "source" });
    for (const args of [["version", "--help"], ["help", "version"], ["version", "-h"]]) {
      const help = await cli(args);
      expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
      expect(help.stdout).toStartWith("Usage: roundhouse version [--json]");
    }
    const bad = await cli(["version", "--frob"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("roundhouse version --help");
  });
});

describe("serving and draining", () => {
  test("the start-up lines name the dashboard at /; on SIGTERM /readyz answers 503 until the stream ends, then the process exits 0", async () => {
    const upstream = startOpenAiUpstream();
    const words = "one two three four five six seven eight nine ten".split(" ");
    upstream.behave({ text: words.join(" "), chunkDelayMs: 200 });
    const configPath = join(dir.path, "drain.yaml");
    writeFileSync(
      configPath,
      `server: { shutdown_grace_ms: 30000 }\nlog: { level: warn }\nproviders:\n  local: { type: openai-compatible, base_url: ${upstream.url}/v1, api_key: k }\nmodels:\n  - id: test/slow\n    endpoints: [{ provider: local, model: gpt-upstream }]\n`,
    );
    const gateway = await spawnGateway({ configPath, dataDir: join(dir.path, "drain-data") });
    try {
      // The printed URLs: the dashboard at the root, which answers with its page.
      await waitFor(() => gateway.output().includes("API: "), "the start-up lines");
      expect(gateway.output()).toContain(`Roundhouse listening on ${gateway.url}\n  dashboard:  ${gateway.url}/\n  API:        ${gateway.url}/api/v1`);
      const root = await fetch(`${gateway.url}/`);
      expect(root.status).toBe(200);
      expect(root.headers.get("content-type")).toStartWith("text/html");
      expect(await root.text()).toMatch(/src="\/assets\/[^"]+\.js"/);
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
      expect(await healthCheck(gateway.url)).toBe(0);

      const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${INFERENCE_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "test/slow", stream: true, messages: [{ role: "user", content: "Hi" }] }),
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = new TextDecoder().decode((await reader.read()).value);
      let ended = false;
      const rest = (async () => {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
        ended = true;
      })();

      gateway.child.kill("SIGTERM");
      // Every probe until the stream ends gets an answer: 200 until the signal is handled, then 503.
      const statuses: Array<number | string> = [];
      while (!ended) {
        const status = await fetch(`${gateway.url}/readyz`, { keepalive: false }).then((probe) => probe.status, (error: Error) => `refused: ${error.message}`);
        if (!ended) statuses.push(status);
        await Bun.sleep(20);
      }
      await rest;
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
      expect(statuses).toContain(503);
      expect(statuses.slice(statuses.indexOf(503))).toEqual(statuses.slice(statuses.indexOf(503)).map(() => 503));
      const content = text
        .split("\n")
        .filter((line) => line.startsWith("data: {"))
        .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? "")
        .join("");
      expect(content).toBe(words.join(" "));
      expect(text).toContain("data: [DONE]");
      expect(await gateway.child.exited).toBe(0);
      // Stopped, nothing listens any more.
      expect(await fetch(`${gateway.url}/readyz`).then(() => "answered", () => "refused")).toBe("refused");
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
      await upstream.stop();
    }
  }, 60_000);

  test("while draining, other requests get a 503 in the error envelope and the container health check fails", async () => {
    const upstream = startOpenAiUpstream();
    upstream.behave({ text: "a b c d e f g h i j k l", chunkDelayMs: 200 });
    const configPath = join(dir.path, "refuse.yaml");
    writeFileSync(
      configPath,
      `server: { shutdown_grace_ms: 30000 }\nlog: { level: warn }\nproviders:\n  local: { type: openai-compatible, base_url: ${upstream.url}/v1, api_key: k }\nmodels:\n  - id: test/slow\n    endpoints: [{ provider: local, model: gpt-upstream }]\n`,
    );
    const gateway = await spawnGateway({ configPath, dataDir: join(dir.path, "refuse-data") });
    try {
      const response = await fetch(`${gateway.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${INFERENCE_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "test/slow", stream: true, messages: [{ role: "user", content: "Hi" }] }),
      });
      const body = response.text();
      gateway.child.kill("SIGTERM");
      await waitFor(async () => (await fetch(`${gateway.url}/readyz`, { keepalive: false })).status === 503, "/readyz turning 503");
      const ready = (await (await fetch(`${gateway.url}/readyz`, { keepalive: false })).json()) as { error: { metadata: { failing: string[] } } };
      expect(ready.error.metadata.failing).toEqual(["shutdown"]);
      const refused = await fetch(`${gateway.url}/api/v1/models`, { keepalive: false });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("connection")).toBe("close");
      const envelope = (await refused.json()) as { error: { code: number; message: string } };
      expect(envelope.error.code).toBe(503);
      expect(envelope.error.message).toContain("shutting down");
      expect(await healthCheck(gateway.url)).not.toBe(0);
      expect(await body).toContain("data: [DONE]");
      expect(await gateway.child.exited).toBe(0);
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL");
      await upstream.stop();
    }
  }, 60_000);
});

/** Runs the Containerfile's HEALTHCHECK command (bash and /dev/tcp, as in the image) against `url`. */
async function healthCheck(url: string): Promise<number> {
  const match = /HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])/.exec(deployFile("Containerfile"));
  const command = (JSON.parse(match![1]!) as string[]).map((part) => part.replace("127.0.0.1/8080", `127.0.0.1/${new URL(url).port}`));
  expect(command.join(" ")).toContain(`/dev/tcp/127.0.0.1/${new URL(url).port}`);
  return await Bun.spawn(command, { stdout: "ignore", stderr: "ignore" }).exited;
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("deploy/", () => {
  const units: Array<[file: string, installedAs: string]> = [
    ["roundhouse.service", "roundhouse.service"],
    ["roundhouse@.service", "roundhouse@8081.service"],
  ];

  test("the README shows each unit and the Containerfile exactly as deploy/ holds them", () => {
    for (const [file] of units) expect(README).toContain("```ini\n" + deployFile(file) + "```");
    expect(README).toContain("```dockerfile\n" + deployFile("Containerfile") + "```");
  });

  test.each(units)("%s is hardened and passes systemd-analyze verify and an offline security review", (file, installedAs) => {
    const text = deployFile(file);
    for (const directive of [
      "DynamicUser=yes",
      "NoNewPrivileges=yes",
      "ProtectSystem=strict",
      "ProtectHome=yes",
      "PrivateTmp=yes",
      "PrivateDevices=yes",
      "CapabilityBoundingSet=\n",
      "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
      "SystemCallFilter=@system-service",
      "StateDirectory=roundhouse",
      "KillSignal=SIGTERM",
    ]) {
      expect(text).toContain(directive);
    }
    const analyze = Bun.which("systemd-analyze");
    if (!analyze) return console.warn(`systemd-analyze is not installed: ${file} is not verified here`);
    const unitDir = join(dir.path, file.replace("@", "-at-"));
    Bun.spawnSync(["mkdir", "-p", unitDir]);
    // The binary and the environment file are the operator's; the rest is checked as written.
    writeFileSync(
      join(unitDir, installedAs),
      text.replace("/usr/local/bin/roundhouse", process.execPath).replace("EnvironmentFile=/etc/", "EnvironmentFile=-/etc/"),
    );
    const verified = Bun.spawnSync([analyze, "verify", join(unitDir, installedAs)], { stdout: "pipe", stderr: "pipe" });
    expect({ code: verified.exitCode, output: verified.stderr.toString() + verified.stdout.toString() }).toEqual({ code: 0, output: "" });
    // Exposure on systemd's 0 (locked down) to 10 (unprotected) scale: at most 2.0.
    const review = Bun.spawnSync([analyze, "security", "--offline=yes", "--threshold=20", "--no-pager", join(unitDir, installedAs)], { stdout: "pipe", stderr: "pipe" });
    const level = /Overall exposure level for \S+: ([\d.]+)/.exec(review.stdout.toString())?.[1];
    expect({ code: review.exitCode, level: Number(level) <= 2 }).toEqual({ code: 0, level: true });
  });

  test("the Containerfile runs the binary as a non-root user with a /readyz health check", () => {
    const text = deployFile("Containerfile");
    expect(text).toMatch(/^FROM debian:bookworm-slim$/m);
    expect(text).toMatch(/^USER 10001:10001$/m);
    expect(text).toContain("GET /readyz");
    expect(text).toMatch(/^ENTRYPOINT \["\/usr\/local\/bin\/roundhouse"\]$/m);
    expect(text).toMatch(/^CMD \["serve", "--host", "0.0.0.0", "--port", "8080"\]$/m);
  });
});

describe("npx roundhouse (the npm bin entry)", () => {
  const node = Bun.which("node");

  /** `node bin/roundhouse.js serve` (what `npx roundhouse serve` runs) on a free port, once it listens. */
  async function serveThroughBin(name: string) {
    const child = Bun.spawn([node!, packageJson.bin.roundhouse, "serve", "--port", "0", "--data-dir", join(dir.path, name)], {
      cwd: ROOT,
      env: { ...process.env, ROUNDHOUSE_MASTER_KEY: "c".repeat(64), ROUNDHOUSE_LOG_LEVEL: "error" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = child.stdout.getReader();
    let output = "";
    while (!output.includes("API: ")) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`serve exited early: ${output}`);
      output += new TextDecoder().decode(chunk.value);
    }
    reader.releaseLock();
    return { child, url: /listening on (\S+)/.exec(output)![1]! };
  }
  const refused = (url: string) => fetch(`${url}/healthz`, { keepalive: false }).then(() => false, () => true);

  test.skipIf(!node)("SIGTERM to it stops the gateway gracefully, exit 0", async () => {
    const { child, url } = await serveThroughBin("bin-term");
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
      expect(await refused(url)).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 30_000);

  test.skipIf(!node)("killed with SIGKILL, it leaves no gateway running", async () => {
    const { child, url } = await serveThroughBin("bin-kill");
    child.kill("SIGKILL");
    await child.exited;
    await waitFor(() => refused(url), "the orphaned gateway to stop");
  }, 30_000);
});
