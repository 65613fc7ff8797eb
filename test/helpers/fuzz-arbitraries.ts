/**
 * fast-check arbitraries for the fuzz suite: hostile path segments, query strings, headers and bodies.
 * Every generator produces something `new Request` accepts (header values are byte strings), so what
 * is tested is the gateway, never the Request constructor.
 */
import fc from "fast-check";

/** Sizes scale with the run: the bounded suite keeps strings small, the long run goes to the body limit. */
export interface Scale {
  /** Longest "huge" body string (the body limit is 10 MiB by default). */
  huge: number;
  /** Longest "huge" path segment, query value or header value. */
  hugeText: number;
  /** Deepest nesting of a generated JSON body. */
  depth: number;
}

export const BOUNDED: Scale = { huge: 200_000, hugeText: 20_000, depth: 20_000 };
export const LONG: Scale = { huge: 11_000_000, hugeText: 300_000, depth: 200_000 };

const huge = (scale: Scale, min = 1_000) => fc.integer({ min, max: Math.max(min, scale.huge) });
const hugeText = (scale: Scale, min = 1_000) => fc.integer({ min, max: Math.max(min, scale.hugeText) });

/** A string safe to put in a URL component whatever it holds (lone surrogates included). */
const encode = (value: string) => encodeURIComponent(value.toWellFormed());

const HOSTILE_SEGMENTS = [
  "..", ".", "%2e%2e", "%2E%2E", "..%2F..%2Fetc%2Fpasswd", "%2e%2e%2f%2e%2e%2f", "a%2Fb", "%2F", "%5C", "..%5C..",
  "%00", "a%00b", "%", "%E0%A4%A", "%ZZ", "%C0%AF", "%FF", "%ED%A0%80", "%C3%28", "~", "%20", " ", "%09", "null",
  "undefined", "__proto__", "constructor", "prototype", "0", "-1", "1e309", "NaN", "9".repeat(40), "%3F", "%23", ";", "*",
  "mcp:", "mcp:localhost", "mcp:%2F%2Fx", "github", "GITHUB", "a_", "a__b", "A",
];

/** One path segment, already percent-encoded (or deliberately broken). */
export function segment(scale: Scale, realIds: string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, unit: "binary" }).map(encode) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, unit: "grapheme" }).map(encode) },
    { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/) },
    { weight: 1, arbitrary: fc.uuid().map(String) },
    { weight: 1, arbitrary: hugeText(scale).map((n) => "x".repeat(n)) },
    ...(realIds.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...realIds) }] : []),
  );
}

/** Substitutes every `:param` (and a catch-all `*`) of an Elysia route path. */
export function fillPath(path: string, scale: Scale, realIds: string[] = []): fc.Arbitrary<string> {
  const params = path.match(/:[A-Za-z]+|\*/g) ?? [];
  const seg = segment(scale, realIds);
  const star = fc.oneof(
    fc.tuple(seg, seg).map(([a, b]) => `${a}/${b}/endpoints`),
    seg,
    fc.constant("roundhouse/simulated/endpoints"),
    fc.array(seg, { minLength: 1, maxLength: 6 }).map((parts) => parts.join("/")),
  );
  return fc.tuple(...params.map((param) => (param === "*" ? star : seg))).map((values) => {
    let index = 0;
    return path.replace(/:[A-Za-z]+|\*/g, () => values[index++]!);
  });
}

/** Whole-path hostility on top of a filled route path: traversal, empty segments, trailing bits. */
export function mutatePath(scale: Scale): fc.Arbitrary<(path: string) => string> {
  return fc.oneof(
    fc.constant((path: string) => path),
    fc.constant((path: string) => `${path}/`),
    fc.constant((path: string) => `${path}/..`),
    fc.constant((path: string) => `${path}/%2e%2e/%2e%2e/keys`),
    fc.constant((path: string) => path.replace("/api/v1/", "/api/v1//")),
    fc.constant((path: string) => path.replace("/api/v1/", "/api/v1/%2e/")),
    fc.constant((path: string) => path.replace("/api/v1/", "/API/V1/")),
    fc.constant((path: string) => `${path}%00`),
    fc.constant((path: string) => `${path};jsessionid=1`),
    segment(scale).map((extra) => (path: string) => `${path}/${extra}`),
  );
}

const QUERY_NAMES = [
  "limit", "offset", "id", "status", "workspace_id", "include_disabled", "starting_after", "sort", "order", "q",
  "supported_parameters", "input_modalities", "output_modalities", "min_age_days", "max_age_days", "min_coding_index",
  "max_output_price", "category", "__proto__", "constructor", "toString", "hasOwnProperty", "",
];
const RAW_VALUES = ["", "null", "undefined", "-1", "0", "1.5", "1e309", "NaN", "Infinity", "true", "false", "%", "%E0%A4%A",
  "%ZZ", "%00", "a%00b", "[]", "{}", "a,b,,c", ",", "9".repeat(40), "+", "%2B", "&", "=", "==", "a=b"];

/** A raw query string (without `?`): repeated names, huge values, unicode, broken percent-encoding. */
export function queryString(scale: Scale): fc.Arbitrary<string> {
  const name = fc.oneof(fc.constantFrom(...QUERY_NAMES), fc.string({ unit: "binary" }).map(encode));
  const value = fc.oneof(
    fc.constantFrom(...RAW_VALUES),
    fc.string({ unit: "binary" }).map(encode),
    fc.string({ unit: "grapheme" }).map(encode),
    fc.integer().map(String),
    hugeText(scale).map((n) => "9".repeat(n)),
  );
  const pair = fc.oneof(fc.tuple(name, value).map(([k, v]) => `${k}=${v}`), name, fc.constantFrom("&", "=", "&&", "=="));
  return fc.array(pair, { maxLength: 10 }).map((pairs) => pairs.join("&"));
}

/** A header value `Headers` accepts: latin-1, no CR, LF or NUL. */
const headerValue = (scale: Scale) =>
  fc.oneof(
    fc.string({ unit: "binary-ascii" }),
    fc.string({ unit: "grapheme" }).map((value) => Buffer.from(value, "utf8").toString("latin1")),
    hugeText(scale).map((n) => "h".repeat(n)),
  ).map((value) => value.replace(/[\r\n\0]/g, " "));

const headerName = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}$/);

const CONTENT_TYPES = [
  "application/json", "application/json; charset=utf-8", "application/json; charset=latin1", "text/plain",
  "application/x-www-form-urlencoded", "multipart/form-data", "multipart/form-data; boundary=x", "application/octet-stream",
  "text/event-stream", "application/xml", "", "*/*", "application/json;;;", "application/vnd.api+json", "image/png",
];

/** An Authorization header (or none) built from real keys, near misses and garbage. */
export function authorization(keys: string[], scale: Scale): fc.Arbitrary<string | undefined> {
  const key = fc.constantFrom(...keys);
  return fc.oneof(
    fc.constant(undefined),
    { weight: 6, arbitrary: key.map((k) => `Bearer ${k}`) },
    key.map((k) => `bearer   ${k}  `),
    key.map((k) => `Bearer ${k} extra`),
    key.map((k) => `Bearer ${k}x`),
    key.map((k) => `Bearer ${k.slice(0, -1)}`),
    key.map((k) => `Basic ${k}`),
    key.map((k) => k),
    fc.constantFrom("Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer null", "Bearer sk-rh-v1-", "Bearer sk-rh-mgmt-v1-0"),
    headerValue(scale),
    hugeText(scale).map((n) => `Bearer sk-rh-v1-${"0".repeat(n)}`),
  );
}

/** A Content-Encoding header, mostly absent: the body is never actually encoded. */
export const contentEncoding = fc.option(fc.constantFrom("gzip", "GZIP", "br", "deflate", "identity", "identity, gzip", "x-unknown"), { freq: 3 });

/** Extra headers: odd content types, session ids, metadata switches, hosts, huge and random ones. */
export function extraHeaders(keys: string[], regionalHost: string, scale: Scale): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      "content-type": fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerValue(scale)),
      "x-session-id": headerValue(scale),
      "x-openrouter-metadata": fc.oneof(fc.constantFrom("enabled", "ENABLED", "disabled"), headerValue(scale)),
      host: fc.oneof(fc.constantFrom(regionalHost, `${regionalHost.toUpperCase()}.:443`, "localhost", "", "[::1]", "a".repeat(300)), headerValue(scale)),
      "x-api-key": fc.oneof(fc.constantFrom(...keys), headerValue(scale)),
      "x-request-id": headerValue(scale),
      accept: fc.constantFrom("text/event-stream", "application/json", "*/*", "text/html"),
      "content-length": fc.constantFrom("0", "-1", "abc", "99999999999999999999"),
      "x-huge": hugeText(scale).map((n) => "y".repeat(n)),
    },
    { requiredKeys: [] },
  ).chain((fixed) =>
    fc.array(fc.tuple(headerName, headerValue(scale)), { maxLength: 4 }).map((random) => ({ ...Object.fromEntries(random), ...fixed })),
  );
}

/** Values of the wrong type for most fields (a schema check decides; the oracle does not guess). */
export function wrongValue(scale: Scale): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom({}, [], 0, -1, 1e308, -1e308, 0.5, true, false, null, "", "x", [null], [{}], { "": null }),
    fc.jsonValue({ maxDepth: 3 }),
    hugeText(scale, 300).map((n) => "z".repeat(n)),
    fc.array(fc.integer(), { minLength: 100, maxLength: 2_000 }),
  );
}

export interface Body {
  label: string;
  body: string | Uint8Array | undefined;
  contentType?: string;
}

const text = (label: string, body: string, contentType?: string): Body => ({ label, body, ...(contentType ? { contentType } : {}) });

/** Random, hostile and malformed bodies for a route whose schema knows `fields`; `sample` is a valid body. */
export function hostileBody(fields: string[], sample: unknown, scale: Scale): fc.Arbitrary<Body> {
  const sampleText = JSON.stringify(sample);
  const knownField = fields.length > 0 ? fc.constantFrom(...fields) : fc.constant("name");
  const nested = (depth: number, object: boolean) =>
    object ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}${"]".repeat(depth)}`;
  return fc.oneof(
    fc.constant<Body>({ label: "empty", body: undefined }),
    fc.constantFrom("", " ", "\n\t ", "\uFEFF", "\uFEFF{}").map((body) => text("blank", body)),
    fc.jsonValue({ maxDepth: 4 }).map((value) => text("json value", JSON.stringify(value))),
    fc.tuple(fc.integer({ min: 2, max: scale.depth }), fc.boolean(), knownField).map(([depth, object, field]) =>
      text(`deep ${depth}`, depth % 2 === 0 ? nested(depth, object) : `{"${field}":${nested(depth, object)}}`),
    ),
    fc.tuple(huge(scale), knownField).map(([n, field]) => text(`huge ${n}`, JSON.stringify({ [field]: "x".repeat(n) }))),
    huge(scale).map((n) => text(`huge array ${n}`, `[${"1,".repeat(n)}1]`)),
    fc.record(Object.fromEntries(fields.map((field) => [field, wrongValue(scale)]))).map((value) => text("wrong types", JSON.stringify(value))),
    fc.tuple(knownField, wrongValue(scale)).map(([field, value]) => text(`mutated ${field}`, JSON.stringify({ ...(sample as object), [field]: value }))),
    knownField.map((field) => {
      const { [field]: _removed, ...rest } = sample as Record<string, unknown>;
      return text(`without ${field}`, JSON.stringify(rest));
    }),
    fc.constant(text("valid sample", sampleText)),
    fc.integer({ min: 0, max: Math.max(0, sampleText.length - 1) }).map((cut) => text(`truncated at ${cut}`, sampleText.slice(0, cut))),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({
      label: "invalid utf-8",
      body: new Uint8Array([...Buffer.from('{"name":"'), 0xff, 0xc0, ...bytes, 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
    })),
    fc.uint8Array({ maxLength: 256 }).map((bytes) => ({ label: "random bytes", body: bytes })),
    fc.constantFrom(
      text("form", "name=a&kind=management", "application/x-www-form-urlencoded"),
      text("multipart", '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\na\r\n--x--\r\n', "multipart/form-data; boundary=x"),
      text("multipart without boundary", "--x--", "multipart/form-data"),
      text("xml", "<name>a</name>", "application/xml"),
      text("plain", "hello", "text/plain"),
      text("gzip magic", "\x1f\x8b\x08\x00garbage"),
      text("proto", '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'),
      text("duplicate keys", '{"name":"a","name":1,"model":"x","model":{}}'),
      text("big numbers", '{"limit":1e999,"max_tokens":-1e999,"temperature":1e-400}'),
      text("NaN", '{"limit":NaN}'),
      text("trailing comma", '{"name":"a",}'),
      text("comments", '{/* c */"name":"a"}'),
      text("concatenated", '{"name":"a"}{"name":"b"}'),
      text("lone surrogate", '{"name":"\\ud800","model":"\\udfff"}'),
    ),
  );
}
