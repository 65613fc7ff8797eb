import { afterAll, beforeAll, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { callApi, listening } from "./helpers/gateway.ts";
import { tinyPdf } from "./helpers/tiny-pdf.ts";
import { startOpenAiUpstream, type Upstream } from "./helpers/upstreams.ts";

/** `/files` over HTTP: upload (type sniffed from the bytes), list with cursors, metadata, content, delete; `file_id` parts. */
type Json = Record<string, any>;
/** The upload limit of the gateway under test: three chunks of the file store. */
const LIMIT = 3 * 1024 * 1024;
let upstream: Upstream;
let gateway: Awaited<ReturnType<typeof listening>>;
let inference: string;

beforeAll(async () => {
  upstream = startOpenAiUpstream();
  gateway = await listening({
    configText: `server: { max_upload_bytes: ${LIMIT} }
providers:
  up: { type: openai-compatible, base_url: ${upstream.url}/v1 }
models:
  - id: test/reader
    endpoints: [{ provider: up, model: reader }]
`,
  });
  inference = (await (await callApi(gateway.url, "POST", "/keys", { name: "files" })).json()).key;
});

afterAll(async () => {
  await gateway.stop();
  await upstream.stop();
});

function upload(bytes: Uint8Array | string, filename: string, type = "application/octet-stream", key = inference): Promise<Response> {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type }), filename);
  return fetch(`${gateway.url}/api/v1/files`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
}

test("upload sniffs the type from the bytes; list pages with a cursor; metadata, content and delete", async () => {
  const pdf = tinyPdf([["Stored report text."]]);
  // The client claims text/plain: the bytes say PDF.
  const created = await upload(pdf, "report.pdf", "text/plain");
  expect(created.status).toBe(201);
  const file = (await created.json()) as Json;
  expect(file).toMatchObject({ _shape: "openrouter", type: "file", filename: "report.pdf", mime_type: "application/pdf", size_bytes: pdf.length, downloadable: true });
  const csv = (await (await upload("a,b\n1,2\n", "data.txt")).json()) as Json;
  expect(csv.mime_type).toBe("text/csv");
  const json = (await (await upload('{"a": 1}', "x.bin")).json()) as Json;
  expect(json.mime_type).toBe("application/json");

  const empty = await upload("", "empty.txt");
  expect(empty.status).toBe(400);
  expect(((await empty.json()) as Json).error.message).toContain("file");

  const first = (await (await callApi(gateway.url, "GET", "/files?limit=2", undefined, inference)).json()) as Json;
  expect(first.data.map((entry: Json) => entry.id)).toEqual([file.id, csv.id]);
  expect(first).toMatchObject({ has_more: true, cursor: csv.id, first_id: file.id, last_id: csv.id });
  const second = (await (await callApi(gateway.url, "GET", `/files?limit=2&cursor=${first.cursor}`, undefined, inference)).json()) as Json;
  expect(second).toMatchObject({ has_more: false, cursor: null });
  expect(second.data.map((entry: Json) => entry.id)).toEqual([json.id]);

  // The reference SDK parses the shapes.
  const sdk = new OpenRouter({ apiKey: inference, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
  expect(((await sdk.files.retrieve({ fileId: file.id })) as Json).filename).toBe("report.pdf");
  const listed = (await sdk.files.list({ limit: 1 })) as Json;
  expect(listed.result.data[0].id).toBe(file.id);

  const content = await fetch(`${gateway.url}/api/v1/files/${file.id}/content`, { headers: { authorization: `Bearer ${inference}` } });
  expect(content.headers.get("content-type")).toBe("application/pdf");
  expect(Buffer.from(await content.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true);

  // Another workspace's key sees none of it.
  const workspace = (await (await callApi(gateway.url, "POST", "/workspaces", { name: "Other", slug: "other-files" })).json()).data.id;
  const outsider = (await (await callApi(gateway.url, "POST", "/keys", { name: "outsider", workspace_id: workspace })).json()).key;
  expect((await callApi(gateway.url, "GET", `/files/${file.id}`, undefined, outsider)).status).toBe(404);
  expect((await callApi(gateway.url, "GET", "/files", undefined, outsider)).status).toBe(200);
  expect(((await (await callApi(gateway.url, "GET", "/files", undefined, outsider)).json()) as Json).data).toEqual([]);

  const deleted = await sdk.files.delete({ fileId: json.id });
  expect(deleted).toMatchObject({ id: json.id });
  expect((await callApi(gateway.url, "GET", `/files/${json.id}`, undefined, inference)).status).toBe(404);
  expect((await callApi(gateway.url, "DELETE", `/files/${json.id}`, undefined, inference)).status).toBe(404);
});

test("an upload streams in: one byte past the limit is a 413 and nothing is listed; exactly the limit is stored, every chunk back in order", async () => {
  const listed = async () => ((await (await callApi(gateway.url, "GET", "/files?limit=1000", undefined, inference)).json()) as Json).data.map((entry: Json) => entry.id);
  const before = await listed();
  const bytes = new Uint8Array(LIMIT + 1).map((_, index) => (index * 7 + (index >> 12)) % 256);
  const over = await upload(bytes, "over.bin");
  expect(over.status).toBe(413);
  expect(await over.json()).toMatchObject({ error: { code: 413, message: `file: larger than the limit of ${LIMIT} bytes` } });
  expect(await listed()).toEqual(before);

  const exact = bytes.subarray(0, LIMIT);
  const created = await upload(exact, "exact.bin");
  expect(created.status).toBe(201);
  const file = (await created.json()) as Json;
  expect(file).toMatchObject({ filename: "exact.bin", mime_type: "application/octet-stream", size_bytes: LIMIT });
  expect(await listed()).toEqual([...before, file.id]);
  const content = await fetch(`${gateway.url}/api/v1/files/${file.id}/content`, { headers: { authorization: `Bearer ${inference}` } });
  expect(Buffer.from(await content.arrayBuffer()).equals(Buffer.from(exact))).toBe(true);
});

test("a PDF uploaded, then referenced by file_id in a chat and in Responses, is read by the file-parser", async () => {
  const file = (await (await upload(tinyPdf([["The uploaded memo mentions zebras."]]), "memo.pdf")).json()) as Json;
  upstream.behave({ text: "read it" });
  upstream.requests.length = 0;
  const chat = await callApi(gateway.url, "POST", "/chat/completions", {
    model: "test/reader",
    messages: [{ role: "user", content: [{ type: "text", text: "summarise" }, { type: "file", file: { file_id: file.id } }] }],
    plugins: [{ id: "file-parser", pdf: { engine: "pdf-text" } }],
  }, inference);
  expect(chat.status).toBe(200);
  const sent = JSON.stringify(upstream.requests[0]!.body.messages);
  expect(sent).toContain("zebras");
  expect(sent).toContain("memo.pdf");
  expect(sent).not.toContain("data:application/pdf");

  upstream.requests.length = 0;
  const responses = await callApi(gateway.url, "POST", "/responses", {
    model: "test/reader",
    input: [{ role: "user", content: [{ type: "input_text", text: "summarise" }, { type: "input_file", file_id: file.id }] }],
    plugins: [{ id: "file-parser", pdf: { engine: "pdf-text" } }],
  }, inference);
  expect(responses.status).toBe(200);
  expect(JSON.stringify(upstream.requests[0]!.body)).toContain("zebras");

  const unknown = await callApi(gateway.url, "POST", "/chat/completions", {
    model: "test/reader",
    messages: [{ role: "user", content: [{ type: "file", file: { file_id: "file-nope" } }] }],
  }, inference);
  expect(unknown.status).toBe(400);
  expect(((await unknown.json()) as Json).error.message).toContain("file-nope");
});
