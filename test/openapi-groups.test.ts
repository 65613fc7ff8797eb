import { expect, test } from "bun:test";
import { inProcess } from "./helpers/gateway.ts";

/**
 * The OpenAPI document describes every route of the operation groups: a schema for the success answer,
 * one for the request body where the route takes a body, and the error envelope's answers.
 */
type Json = Record<string, any>;

const GROUPS = [
  "guardrails",
  "activity",
  "analytics",
  "credits",
  "byok",
  "files",
  "generation",
  "observability",
  "benchmarks",
  "classifications",
  "datasets",
  "endpoints/zdr",
  "endpoints/health",
  "model/",
  "models/user",
  "keys",
  "workspaces",
];
const BODY_METHODS = new Set(["post", "put", "patch"]);

const gateway = await inProcess();

test("every route of the operation groups has its success, request body and error schemas", async () => {
  const response = await gateway.call("GET", "/openapi.json");
  expect(response.status).toBe(200);
  const document = (await response.json()) as Json;
  expect(document.components.schemas.ErrorEnvelope.properties.error.required).toEqual(["code", "message"]);
  const problems: string[] = [];
  const covered = new Set<string>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    const group = GROUPS.find((name) => path.startsWith(`/api/v1/${name}`));
    if (!group) continue;
    covered.add(group);
    for (const [method, operation] of Object.entries(item)) {
      const name = `${method.toUpperCase()} ${path}`;
      const success = operation.responses?.["200"] ?? operation.responses?.["201"];
      const content = Object.values((success?.content ?? {}) as Record<string, Json>);
      if (!content.some((media) => media.schema && Object.keys(media.schema).length > 0)) problems.push(`${name}: no success schema`);
      if (BODY_METHODS.has(method)) {
        const bodies = Object.values((operation.requestBody?.content ?? {}) as Record<string, Json>);
        if (!bodies.some((media) => media.schema)) problems.push(`${name}: no request body schema`);
      }
      for (const status of ["400", "401", "403", "404"]) {
        if (operation.responses?.[status]?.content?.["application/json"]?.schema?.$ref !== "#/components/schemas/ErrorEnvelope") problems.push(`${name}: no ${status} error envelope`);
      }
    }
  }
  expect(problems).toEqual([]);
  expect([...covered].sort()).toEqual([...GROUPS].sort());
  // An upload documents its multipart body and its 413.
  const upload = document.paths["/api/v1/files/"].post;
  expect(upload.requestBody.content["multipart/form-data"].schema.properties.file).toMatchObject({ type: "string", format: "binary" });
  expect(upload.responses["413"]).toBeDefined();
});
