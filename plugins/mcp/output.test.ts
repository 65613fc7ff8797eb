import { describe, expect, test } from "bun:test";
import { bounded, resultText } from "./output.ts";

describe("MCP tool output", () => {
  test("joins text blocks, keeps text resources and names what is not text", () => {
    const text = resultText({
      content: [
        { type: "text", text: "first" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
        { type: "resource_link", uri: "file:///c", name: "c" },
      ],
    });
    expect(text).toBe('first\n[image (image/png) content]\ninside\n[binary resource file:///b.bin (application/octet-stream)]\n[resource file:///c "c"]');
  });

  test("falls back to the structured content when there is no content", () => {
    expect(resultText({ content: [], structuredContent: { total: 3 } })).toBe('{"total":3}');
  });

  test("cuts on a character boundary and stays within the bound, note included", () => {
    const text = "é".repeat(100);
    const cut = bounded(text, 81);
    expect(new TextEncoder().encode(cut).length).toBeLessThanOrEqual(81);
    expect(cut).toStartWith("é");
    expect(cut).not.toContain("\uFFFD");
    expect(cut).toEndWith("[truncated: the tool returned 200 bytes]");
    expect(bounded("short", 81)).toBe("short");
  });
});
