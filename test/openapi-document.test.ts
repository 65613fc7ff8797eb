/**
 * The API's description as an operator or a client generator meets it, over HTTP from a running
 * gateway: /api/v1/openapi.json validates against the OpenAPI schema (a well-kept validator), states
 * the interface version 1.0.0, and every operation has a summary, a description, its request body's
 * schema, its success answer and the error envelope on a 4xx; no path is a wildcard or the same as
 * another once parameter names are set aside. /api/v1/docs renders it in headless Chromium with nothing
 * fetched off the machine and no script.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { OPERATIONS } from "../src/api/openapi-operations.ts";
import type { Browser } from "playwright-core";
import { launchChromium } from "./helpers/chromium.ts";
import { watchedPage } from "./helpers/dashboard.ts";
import { listening } from "./helpers/gateway.ts";

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"];
const BODY_METHODS = new Set(["post", "put", "patch"]);
const ENVELOPE = "#/components/schemas/ErrorEnvelope";

let gateway: Awaited<ReturnType<typeof listening>>;
let document: Json;
let browser: Browser | undefined;

beforeAll(async () => {
  gateway = await listening();
  const response = await fetch(`${gateway.url}/api/v1/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  document = (await response.json()) as Json;
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
});

function operations(): Array<{ name: string; path: string; method: string; operation: Json }> {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ name: `${method.toUpperCase()} ${path}`, path, method, operation: item[method] as Json })),
  );
}

test("the document validates against the OpenAPI schema and states the interface version 1.0.0", async () => {
  const result = await new Validator().validate(structuredClone(document));
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(document.info.version).toBe("1.0.0");
  expect(operations().length).toBeGreaterThan(100);
});

test("every operation has a summary, a description, its body's schema, its success answer and an error envelope on a 4xx", () => {
  const problems: string[] = [];
  for (const { name, method, operation } of operations()) {
    if (typeof operation.summary !== "string" || operation.summary.trim() === "") problems.push(`${name}: no summary`);
    if (typeof operation.description !== "string" || operation.description.trim() === "") problems.push(`${name}: no description`);
    if (BODY_METHODS.has(method)) {
      const bodies = Object.values((operation.requestBody?.content ?? {}) as Record<string, Json>);
      if (!bodies.some((media) => media.schema && Object.keys(media.schema).length > 0)) problems.push(`${name}: no request body schema`);
    }
    const responses = Object.entries((operation.responses ?? {}) as Record<string, Json>);
    const success = responses.filter(([status]) => status.startsWith("2"));
    const described = success.some(
      ([status, response]) => status === "204" || Object.values((response.content ?? {}) as Record<string, Json>).some((media) => media.schema && Object.keys(media.schema).length > 0),
    );
    if (!described) problems.push(`${name}: no success answer with a schema`);
    const clientErrors = responses.filter(([status]) => status.startsWith("4"));
    if (!clientErrors.some(([, response]) => Object.values((response.content ?? {}) as Record<string, Json>).some((media) => media.schema?.$ref === ENVELOPE))) {
      problems.push(`${name}: no 4xx answer with the error envelope`);
    }
  }
  expect(problems).toEqual([]);
  // The table of operation texts names no operation that no longer exists.
  const names = new Set(operations().map(({ name }) => name));
  expect(Object.keys(OPERATIONS).filter((name) => !names.has(name))).toEqual([]);
  const envelope = document.components.schemas.ErrorEnvelope;
  expect(envelope.required).toEqual(["error"]);
  expect(envelope.properties.error.required).toEqual(["code", "message"]);
});

test("no path is a wildcard, and no two paths are the same once parameter names are set aside", () => {
  const paths = Object.keys(document.paths);
  expect(paths.filter((path) => path.includes("*"))).toEqual([]);
  const seen = new Map<string, string>();
  const duplicates: string[] = [];
  for (const path of paths) {
    const shape = path.replace(/\{[^}]+\}/g, "{}").replace(/\/+$/, "").toLowerCase();
    const earlier = seen.get(shape);
    if (earlier) duplicates.push(`${earlier} = ${path}`);
    else seen.set(shape, path);
  }
  expect(duplicates).toEqual([]);
  // The model routes are named by their parts, each declared as a path parameter.
  const endpoints = document.paths["/api/v1/models/{author}/{slug}/endpoints"]?.get;
  expect(endpoints.parameters.filter((parameter: Json) => parameter.in === "path").map((parameter: Json) => parameter.name)).toEqual(["author", "slug"]);
  expect(document.paths["/api/v1/model/{author}/{slug}"]?.get).toBeDefined();
  // The Anthropic SDK's doubled /v1 is an alias, named on the operation it repeats.
  expect(document.paths["/api/v1/v1/messages"]).toBeUndefined();
  expect(document.paths["/api/v1/messages"].post.description).toContain("/api/v1/v1/messages");
});

test("the spec's preset creation documents its {data: Preset} answer and the spec's error statuses", () => {
  const operation = document.paths["/api/v1/presets/{slug}/responses"].post;
  expect(operation.requestBody.content["application/json"].schema).toBeDefined();
  expect(operation.responses["200"].content["application/json"].schema).toMatchObject({ required: ["data"], properties: { data: { $ref: "#/components/schemas/Preset" } } });
  expect(document.components.schemas.Preset.properties.designated_version.properties.system_prompt.type).toBe("string");
  for (const status of ["400", "401", "403", "404", "500"]) expect(operation.responses[status].content["application/json"].schema.$ref).toBe(ENVELOPE);
});

test("the reference page renders offline in Chromium: every operation's summary, grouped by tag, no script, nothing off the machine", async () => {
  const raw = await fetch(`${gateway.url}/api/v1/docs`);
  expect(raw.status).toBe(200);
  expect(raw.headers.get("content-security-policy")).toContain("default-src 'none'");
  const html = await raw.text();
  expect(html).not.toContain("<script");
  expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

  browser = await launchChromium();
  const watched = await watchedPage(browser);
  const response = await watched.page.goto(`${gateway.url}/api/v1/docs`);
  expect(response?.status()).toBe(200);
  await watched.page.getByRole("heading", { name: "Roundhouse API reference" }).waitFor();
  const text = await watched.page.locator("body").innerText();
  const missing = operations().filter(({ operation }) => !text.includes(operation.summary)).map(({ name }) => name);
  expect(missing).toEqual([]);
  const tags = new Set(operations().map(({ operation }) => operation.tags?.[0]));
  const headings = await watched.page.locator("h2").allInnerTexts();
  for (const tag of tags) expect(headings).toContain(tag);
  // An operation's answers open on a click: the preset's {data} answer and its error statuses.
  const preset = watched.page.locator('section[id="post-/api/v1/presets/{slug}/responses"]');
  await preset.getByText("Responses", { exact: true }).click();
  await preset.getByText("404", { exact: true }).waitFor({ state: "visible" });
  expect(await preset.innerText()).toMatch(/data\s+required\s+Preset/);
  expect(watched.offMachine).toEqual([]);
  expect(watched.errors).toEqual([]);
}, 60_000);
