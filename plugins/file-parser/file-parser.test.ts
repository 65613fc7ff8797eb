import { afterAll, describe, expect, test } from "bun:test";
import type { CanonicalRequest, CanonicalResponse, ContentPart } from "../../src/core/canonical.ts";
import type { CatalogModel } from "../../src/core/catalog-types.ts";
import { GatewayError } from "../../src/core/errors.ts";
import type { AttemptInfo } from "../../src/plugins/contract.ts";
import { makeEndpoint } from "../../src/providers/openai-compatible/test-support.ts";
import { testPluginContext, type TestContextOptions } from "../../test/helpers/plugin-context.ts";
import { pdfDataUrl, tinyPdf } from "../../test/helpers/tiny-pdf.ts";
import plugin from "./index.ts";

const REPORT = tinyPdf([["Quarterly report", "Revenue grew by 12 (twelve) percent"], ["Page two: outlook is stable"]]);
const BLANK = tinyPdf([[]]);

// A real file server: PDFs by path, and a count of what it served.
const served: string[] = [];
const files = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    served.push(path);
    if (path === "/report.pdf") return new Response(REPORT, { headers: { "content-type": "application/pdf" } });
    if (path === "/page.pdf") return new Response("<html>not a pdf</html>", { headers: { "content-type": "text/html" } });
    return new Response("missing", { status: 404 });
  },
});
const base = `http://127.0.0.1:${files.port}`;
afterAll(() => files.stop(true));

function request(...parts: ContentPart[]): CanonicalRequest {
  return { model: "m/text-only", messages: [{ role: "user", content: [{ type: "text", text: "Summarise." }, ...parts] }], stream: false, streamUsage: false };
}

function attempt(inputModalities: string[]): AttemptInfo {
  return { model: { id: "m/model" } as CatalogModel, endpoint: makeEndpoint({ inputModalities }), index: 0 };
}

async function prepare(input: CanonicalRequest, config: Record<string, unknown>, options: TestContextOptions = {}) {
  return plugin.prepareRequest!(testPluginContext(options), { request: input, config });
}

async function rejection(outcome: Promise<unknown>): Promise<GatewayError> {
  const error = await outcome.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

const textOf = (result: CanonicalRequest, index = 1) => {
  const part = result.messages[0]!.content[index]!;
  expect(part.type).toBe("text");
  return (part as { text: string }).text;
};

describe("file-parser", () => {
  test("a PDF data URL becomes a text part with the PDF's text, pages in order; other parts stay", async () => {
    const input = request({ type: "file", url: pdfDataUrl(REPORT), filename: "q3.pdf" });
    const result = await prepare(input, { pdf: { engine: "pdf-text" } });
    expect(result.messages[0]!.content[0]).toEqual({ type: "text", text: "Summarise." });
    expect(textOf(result)).toBe('<file name="q3.pdf">\nQuarterly report\nRevenue grew by 12 (twelve) percent\n\nPage two: outlook is stable\n</file>');
    expect(input.messages[0]!.content[1]!.type).toBe("file");
  });

  test("a PDF URL is fetched through the guarded fetcher and read", async () => {
    const result = await prepare(request({ type: "file", url: `${base}/report.pdf` }), { pdf: { engine: "cloudflare-ai" } });
    expect(textOf(result)).toStartWith("<file>\nQuarterly report\n");
  });

  test("the URL guard applies to fetched files: a private address is a 400 naming the part", async () => {
    const error = await rejection(prepare(request({ type: "file", url: `${base}/report.pdf` }), { pdf: { engine: "pdf-text" } }, { allowPrivateUrls: false }));
    expect(error.code).toBe("bad_request");
    expect(error.message).toStartWith("messages[0].content[1]:");
  });

  test("a file that claims to be a PDF and is not is a 400 naming the part", async () => {
    const fetched = await rejection(prepare(request({ type: "file", url: `${base}/page.pdf` }), { pdf: { engine: "pdf-text" } }));
    expect(fetched.message).toBe("messages[0].content[1]: the file is not a PDF (it has no %PDF- header)");
    const damaged = `data:application/pdf;base64,${Buffer.from("%PDF-1.4\nnothing else").toString("base64")}`;
    const error = await rejection(prepare(request({ type: "file", url: damaged }), { pdf: { engine: "pdf-text" } }));
    expect(error.message).toBe("messages[0].content[1]: the file is not a PDF that can be read");
  });

  test("files that are not PDFs are left as they are, and a request without PDFs is returned unchanged", async () => {
    const input = request({ type: "file", url: "data:text/csv;base64,YSxiCg==", filename: "table.csv" }, { type: "image", url: "data:image/png;base64,AAAA" });
    expect(await prepare(input, { pdf: { engine: "pdf-text" } })).toBe(input);
  });

  test("native (and the default): files go as they are to endpoints that take files, are read for the others", async () => {
    const input = request({ type: "file", url: pdfDataUrl(REPORT), mediaType: "application/pdf" });
    for (const config of [{}, { pdf: { engine: "native" as const } }]) {
      expect(await prepare(input, config)).toBe(input);
      const context = testPluginContext();
      expect(await plugin.transformRequest!(context, { request: input, config, attempt: attempt(["text", "file"]) })).toBe(input);
      const parsed = await plugin.transformRequest!(context, { request: input, config, attempt: attempt(["text", "image"]) });
      expect(textOf(parsed)).toContain("Revenue grew by 12 (twelve) percent");
    }
  });

  test("a fallback attempt does not fetch the file again", async () => {
    const input = request({ type: "file", url: `${base}/report.pdf` });
    const before = served.length;
    const context = testPluginContext();
    for (const index of [0, 1]) {
      const result = await plugin.transformRequest!(context, { request: input, config: {}, attempt: { ...attempt(["text"]), index } });
      expect(textOf(result)).toContain("Quarterly report");
    }
    expect(served.length - before).toBe(1);
  });

  test("a PDF without a text layer says so when no OCR model is configured", async () => {
    const result = await prepare(request({ type: "file", url: pdfDataUrl(BLANK), filename: "scan.pdf" }), { pdf: { engine: "pdf-text" } });
    expect(textOf(result)).toContain("no text layer");
  });

  describe("with an OCR model configured", () => {
    const calls: Array<{ model: string; request: Omit<CanonicalRequest, "model"> }> = [];
    const options: TestContextOptions = {
      settings: { "file-parser": { ocr_model: "local/ocr" } },
      call: async (model, ocrRequest): Promise<CanonicalResponse> => {
        calls.push({ model, request: ocrRequest });
        return { output: [{ type: "text", text: "Text read by OCR" }], finishReason: "stop" };
      },
    };

    test("a PDF without a text layer is read by the OCR model, which gets the file", async () => {
      const result = await prepare(request({ type: "file", url: pdfDataUrl(BLANK), filename: "scan.pdf" }), { pdf: { engine: "pdf-text" } }, options);
      expect(textOf(result)).toBe('<file name="scan.pdf">\nText read by OCR\n</file>');
      expect(calls.at(-1)!.model).toBe("local/ocr");
      const sent = calls.at(-1)!.request.messages[0]!.content.find((part) => part.type === "file");
      expect(sent).toEqual({ type: "file", url: pdfDataUrl(BLANK), filename: "scan.pdf", mediaType: "application/pdf" });
    });

    test("mistral-ocr reads with the OCR model even when there is a text layer; other engines do not", async () => {
      const count = calls.length;
      const input = request({ type: "file", url: pdfDataUrl(REPORT) });
      expect(textOf(await prepare(input, { pdf: { engine: "mistral-ocr" } }, options))).toBe("<file>\nText read by OCR\n</file>");
      expect(textOf(await prepare(input, { pdf: { engine: "pdf-text" } }, options))).toContain("Quarterly report");
      expect(calls.length).toBe(count + 1);
    });
  });

  test("mistral-ocr without an OCR model falls back to the local extractor", async () => {
    const result = await prepare(request({ type: "file", url: pdfDataUrl(REPORT) }), { pdf: { engine: "mistral-ocr" } });
    expect(textOf(result)).toContain("Page two: outlook is stable");
  });
});
