import { describe, expect, test } from "bun:test";
import { isReadable, pageText } from "./page-text.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const html = (body: string, head = "") => pageText("text/html", bytes(`<html><head>${head}</head><body>${body}</body></html>`), "https://x.example/a/b", 10_000);

describe("page text", () => {
  test("the title is the <title>, entities decoded and whitespace collapsed", () => {
    expect(html("", "<title>\n  Fish &amp; Chips &lt;3\n</title>").title).toBe("Fish & Chips <3");
    expect(html("<h1>No title</h1>").title).toBe("");
    // The title is not repeated in the text, even without a <head>.
    const headless = pageText("text/html", bytes("<title>Only once</title><p>Body</p>"), "https://x.example/", 100);
    expect(headless).toEqual({ title: "Only once", text: "Body", truncated: false });
  });

  test("scripts, styles, comments and unclosed scripts leave no text", () => {
    const page = html(
      '<p>before</p><script>var s = "<p>SCRIPT</p></style>";</script><!-- <p>COMMENT</p> --><STYLE>.x{}</STYLE><p>middle</p>' +
        '<svg><text>SVG</text></svg><noscript>NOSCRIPT</noscript><p>after</p><script>never closed <p>TAIL</p>',
    );
    expect(page.text).toBe("before\n\nmiddle\n\nafter");
    expect(page.truncated).toBe(false);
  });

  test("headings keep their case, tables their cells, links their targets", () => {
    const page = html('<h2>Stalls</h2><table><tr><th>Name</th><th>Count</th></tr><tr><td>North</td><td>12</td></tr></table><a href="https://y.example/">y</a>');
    expect(page.text).toContain("Stalls");
    expect(page.text).toMatch(/Name\s+Count\nNorth\s+12/);
    expect(page.text).toContain("y [https://y.example/]");
  });

  test("text is cut at the characters asked for; a huge page's markup is read only in part", () => {
    const short = pageText("text/plain", bytes("0123456789"), "https://x.example/notes.txt", 4);
    expect(short).toEqual({ title: "notes.txt", text: "0123", truncated: true });
    // Mostly markup: 3 MB of it, of which the text would fit; only a bounded prefix is converted.
    const dense = `<p>start</p>${"<div><span></span></div>".repeat(125_000)}<p>END-MARKER</p>`;
    const page = pageText("text/html", bytes(dense), "https://x.example/", 1_000);
    expect(page.text).toBe("start");
    expect(page.truncated).toBe(true);
    // Scripts do not count against that bound.
    const scripted = `<script>${"x".repeat(3_000_000)}</script><p>END-MARKER</p>`;
    expect(pageText("text/html", bytes(scripted), "https://x.example/", 1_000)).toMatchObject({ text: "END-MARKER", truncated: false });
  });

  test("text and JSON pass as they are, titled by the URL", () => {
    expect(pageText("application/json", bytes('{"a": 1}'), "https://x.example/", 100)).toEqual({ title: "x.example", text: '{"a": 1}', truncated: false });
    expect(pageText("text/markdown", bytes("# Hi"), "https://x.example/docs/readme.md", 100).title).toBe("readme.md");
  });

  test("readable types", () => {
    for (const type of ["text/html", "application/xhtml+xml", "text/plain", "text/markdown", "text/csv", "application/json", "application/ld+json"]) expect(isReadable(type)).toBe(true);
    for (const type of ["application/pdf", "image/png", "application/octet-stream", ""]) expect(isReadable(type)).toBe(false);
  });
});
