import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ADMIN_KEY, inProcess, listening } from "./helpers/gateway.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const gateway = await inProcess();

async function create(slug: string, body: unknown, style = "responses") {
  return gateway.call("POST", `/presets/${slug}/${style}`, { body });
}

async function expect400(body: unknown, field: string) {
  const response = await create("rules", body);
  const json = await response.json();
  expect({ status: response.status, field, message: json.error?.message }).toEqual({
    status: 400,
    field,
    message: expect.stringContaining(field),
  } as never);
  expect(json.error.code).toBe(400);
}

describe("POST /presets/{slug}/responses", () => {
  test("creates the preset with name = slug and version 1, every field of the spec's tables", async () => {
    const response = await create("support-bot", {
      model: "openai/gpt-4o",
      instructions: "You answer support questions.",
      temperature: 0.2,
      input: "not kept",
      stream: false,
      store: false,
      service_tier: "auto",
      prompt: { id: "tmpl" },
      metadata: { team: "support" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const { data } = await response.json();
    expect(Object.keys(data).sort()).toEqual(
      [
        "created_at",
        "creator_user_id",
        "description",
        "designated_version",
        "designated_version_id",
        "id",
        "name",
        "slug",
        "status",
        "status_updated_at",
        "updated_at",
        "workspace_id",
      ].sort(),
    );
    expect(data).toMatchObject({ slug: "support-bot", name: "support-bot", status: "active", description: null });
    expect(data.id).toMatch(UUID);
    expect(data.workspace_id).toMatch(UUID);
    expect(data.designated_version_id).toBe(data.designated_version.id);
    for (const field of ["created_at", "updated_at", "status_updated_at"]) expect(data[field]).toMatch(ISO);
    const version = data.designated_version;
    expect(Object.keys(version).sort()).toEqual(
      ["config", "created_at", "creator_id", "id", "preset_id", "system_prompt", "updated_at", "version"].sort(),
    );
    expect(version).toMatchObject({ preset_id: data.id, version: 1, system_prompt: "You answer support questions." });
    expect(version.id).toMatch(UUID);
    expect(version.created_at).toMatch(ISO);
    expect(typeof version.creator_id).toBe("string");
    // Only preset fields persist: no input, stream, store, prompt, metadata or service-tier default games.
    expect(version.config).toEqual({ model: "openai/gpt-4o", temperature: 0.2, service_tier: "auto" });
  });

  test("an existing slug gets a new version that becomes the designated one", async () => {
    const first = (await (await create("versioned", { model: "a/one" })).json()).data;
    const second = (await (await create("versioned", { model: "a/two", instructions: null })).json()).data;
    expect(second.id).toBe(first.id);
    expect(second.designated_version.version).toBe(2);
    expect(second.designated_version_id).not.toBe(first.designated_version_id);
    expect(second.designated_version.system_prompt).toBeNull();
    const read = (await (await gateway.call("GET", "/presets/versioned")).json()).data;
    expect(read.designated_version).toEqual(second.designated_version);
  });

  test("the whole preset-relevant part is kept, in the style-neutral vocabulary", async () => {
    const body = {
      model: "anthropic/claude",
      models: ["anthropic/claude", "openai/gpt-4o"],
      provider: { order: ["anthropic"], allow_fallbacks: false, sort: "price" },
      plugins: [{ id: "response-healing" }],
      max_output_tokens: 500,
      top_p: 0.9,
      reasoning: { effort: "high" },
      text: { format: { type: "json_schema", name: "out", schema: { type: "object" } }, verbosity: "low" },
      tools: [{ type: "function", name: "lookup", description: "Look up", parameters: { type: "object" } }],
      tool_choice: { type: "function", name: "lookup" },
      parallel_tool_calls: false,
      session_id: "not-kept",
      user: "not-kept",
      safety_identifier: "not-kept",
      debug: { echo_upstream_body: true },
    };
    const { data } = await (await create("full", body)).json();
    expect(data.designated_version.config).toEqual({
      model: "anthropic/claude",
      models: ["anthropic/claude", "openai/gpt-4o"],
      provider: { order: ["anthropic"], allow_fallbacks: false, sort: "price" },
      plugins: [{ id: "response-healing" }],
      max_tokens: 500,
      top_p: 0.9,
      reasoning: { effort: "high" },
      response_format: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" } } },
      verbosity: "low",
      tools: [{ type: "function", function: { name: "lookup", description: "Look up", parameters: { type: "object" } } }],
      tool_choice: { type: "function", function: { name: "lookup" } },
      parallel_tool_calls: false,
    });
  });

  test("the body the OpenRouter SDK always adds is accepted", async () => {
    const response = await create("sdk-defaults", { input: "hi", service_tier: "auto", store: false, stream: false });
    expect(response.status).toBe(200);
  });

  test("slug must be URL-safe and at least one character", async () => {
    for (const slug of ["a%20b", "%F0%9F%98%80", "semi%3Bcolon", "x".repeat(257)]) {
      const response = await create(slug, { model: "a/b" });
      expect({ slug, status: response.status }).toEqual({ slug, status: 400 });
      expect((await response.json()).error.message).toContain("slug");
    }
    expect((await create("", { model: "a/b" })).status).toBe(400);
    expect((await create("ok.name_~-1", { model: "a/b" })).status).toBe(200);
  });

  describe("every rule of the ResponsesRequest tables is a 400 naming the field", () => {
    const tooManyPairs = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, "v"]));
    const cases: Array<[string, unknown, string]> = [
      ["metadata with 17 pairs", { metadata: tooManyPairs }, "metadata"],
      ["metadata key of 65 characters", { metadata: { ["k".repeat(65)]: "v" } }, "metadata"],
      ["metadata key with brackets", { metadata: { "a[0]": "v" } }, "metadata"],
      ["metadata value of 513 characters", { metadata: { k: "v".repeat(513) } }, "metadata"],
      ["metadata value not a string", { metadata: { k: 1 } }, "metadata"],
      ["session_id of 257 characters", { session_id: "s".repeat(257) }, "session_id"],
      ["user of 257 characters", { user: "u".repeat(257) }, "user"],
      ["max_tool_calls over 30", { max_tool_calls: 31 }, "max_tool_calls"],
      ["stop_server_tools_when empty", { stop_server_tools_when: [] }, "stop_server_tools_when"],
      ["stop condition without its field", { stop_server_tools_when: [{ type: "step_count_is" }] }, "stop_server_tools_when"],
      ["previous_response_id", { previous_response_id: "resp_1" }, "previous_response_id"],
      ["store true", { store: true }, "store"],
      ["provider with an extra property", { provider: { ordre: ["a"] } }, "provider"],
      ["provider.sort unknown", { provider: { sort: "cheapest" } }, "provider.sort"],
      ["provider.data_collection unknown", { provider: { data_collection: "maybe" } }, "provider.data_collection"],
      ["provider.quantizations unknown", { provider: { quantizations: ["int3"] } }, "provider.quantizations"],
      ["tool_choice unknown", { tool_choice: "sometimes" }, "tool_choice"],
      ["tool_choice function without name", { tool_choice: { type: "function" } }, "tool_choice"],
      ["include unknown", { include: ["everything"] }, "include"],
      ["service_tier unknown", { service_tier: "gold" }, "service_tier"],
      ["temperature not a number", { temperature: "hot" }, "temperature"],
      ["unknown plugin id", { plugins: [{ id: "teleport" }] }, "plugins[0]"],
      ["auto-router cost_tier", { plugins: [{ id: "auto-router", cost_tier: "cheap" }] }, "plugins[0]"],
      ["auto-router cost_quality_tradeoff 11", { plugins: [{ id: "auto-router", cost_quality_tradeoff: 11 }] }, "plugins[0]"],
      [
        "auto-router 1025 allowed_models",
        { plugins: [{ id: "auto-router", allowed_models: Array.from({ length: 1025 }, (_, i) => `m/${i}`) }] },
        "plugins[0]",
      ],
      ["auto-router pattern of 1025 characters", { plugins: [{ id: "auto-router", excluded_models: ["m".repeat(1025)] }] }, "plugins[0]"],
      [
        "auto-router 65537 characters in total",
        { plugins: [{ id: "auto-router", allowed_models: Array.from({ length: 65 }, () => "p".repeat(1009)).concat(["x".repeat(1000)]) }] },
        "plugins[0]",
      ],
      ["auto-beta-router pin_model", { plugins: [{ id: "auto-beta-router", pin_model: true }] }, "plugins[0]"],
      ["pareto-router min_coding_score 1.5", { plugins: [{ id: "pareto-router", min_coding_score: 1.5 }] }, "plugins[0]"],
      ["pareto-router negative max_price", { plugins: [{ id: "pareto-router", max_price: -1 }] }, "plugins[0]"],
      ["pareto-router price_source", { plugins: [{ id: "pareto-router", price_source: "list" }] }, "plugins[0]"],
      ["fusion 9 analysis_models", { plugins: [{ id: "fusion", analysis_models: Array.from({ length: 9 }, (_, i) => `m/${i}`) }] }, "plugins[0]"],
      ["fusion no analysis_models", { plugins: [{ id: "fusion", analysis_models: [] }] }, "plugins[0]"],
      ["fusion max_tool_calls 17", { plugins: [{ id: "fusion", max_tool_calls: 17 }] }, "plugins[0]"],
      ["fusion 9 tools", { plugins: [{ id: "fusion", tools: Array.from({ length: 9 }, () => ({ type: "t" })) }] }, "plugins[0]"],
      ["fusion preset", { plugins: [{ id: "fusion", preset: "general-best" }] }, "plugins[0]"],
      ["web user_location type", { plugins: [{ id: "web", user_location: { type: "exact" } }] }, "plugins[0]"],
      ["moderation with enabled", { plugins: [{ id: "moderation", enabled: false }] }, "plugins[0]"],
    ];
    for (const [name, body, field] of cases) {
      test(name, () => expect400(body, field));
    }
  });

  test("the plugin limits at their edges are accepted", async () => {
    const response = await create("edges", {
      max_tool_calls: 30,
      metadata: Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`k${index}`.padEnd(64, "x"), "v".repeat(512)])),
      session_id: "s".repeat(256),
      user: "u".repeat(256),
      previous_response_id: null,
      plugins: [
        { id: "auto-router", allowed_models: ["anthropic/*"], excluded_models: ["*/claude-2*"], cost_tier: "max", pin_model: true },
        { id: "pareto-router", min_coding_score: 1, max_price: 0, price_source: "weighted_avg" },
        { id: "fusion", analysis_models: Array.from({ length: 8 }, (_, i) => `m/${i}`), max_tool_calls: 16, tools: [] },
        { id: "web", engine: "native", max_results: 3, user_location: { type: "approximate", city: "Oslo" } },
        { id: "web-fetch", allowed_domains: ["example.com"], max_uses: 2 },
        { id: "moderation" },
        { id: "context-compression", enabled: false },
      ],
    });
    expect(response.status).toBe(200);
  });
});

describe("the chat/completions and messages twins", () => {
  test("chat: the system prompt comes from the system message; messages are not kept", async () => {
    const response = await create(
      "chat-twin",
      {
        model: "openai/gpt-4o",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        max_completion_tokens: 100,
        stream: false,
        tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      },
      "chat/completions",
    );
    expect(response.status).toBe(200);
    const version = (await response.json()).data.designated_version;
    expect(version.system_prompt).toBe("Be brief.");
    expect(version.config).toEqual({
      model: "openai/gpt-4o",
      max_tokens: 100,
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
    });
  });

  test("chat: messages are required", async () => {
    const response = await create("chat-twin", { model: "a/b" }, "chat/completions");
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain("messages");
  });

  test("messages: the system prompt comes from system; tools take the chat form", async () => {
    const response = await create(
      "messages-twin",
      {
        model: "anthropic/claude",
        max_tokens: 64,
        system: [{ type: "text", text: "You are terse." }],
        messages: [{ role: "user", content: "hi" }],
        stop_sequences: ["END"],
        tools: [{ name: "get_weather", description: "Weather", input_schema: { type: "object" } }],
        tool_choice: { type: "any" },
      },
      "messages",
    );
    expect(response.status).toBe(200);
    const version = (await response.json()).data.designated_version;
    expect(version.system_prompt).toBe("You are terse.");
    expect(version.config).toEqual({
      model: "anthropic/claude",
      max_tokens: 64,
      stop: ["END"],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object" } } }],
      tool_choice: "required",
    });
  });

  test("messages: fallbacks cannot be combined with models", async () => {
    const response = await create(
      "messages-twin",
      { model: "a/b", messages: [{ role: "user", content: "hi" }], models: ["a/c"], fallbacks: [{ model: "a/d" }] },
      "messages",
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toContain("fallbacks");
  });
});

const readsGateway = await inProcess();

describe("reads", () => {
  const reads = readsGateway;

  test("list (most recently updated first), get, versions (ascending) and one version", async () => {
    for (const [slug, model] of [["alpha", "a/1"], ["beta", "b/1"], ["alpha", "a/2"]]) {
      const response = await reads.call("POST", `/presets/${slug}/responses`, { body: { model } });
      expect(response.status).toBe(200);
      await Bun.sleep(2);
    }
    const list = await (await reads.call("GET", "/presets?offset=0&limit=50")).json();
    expect(list.total_count).toBe(2);
    expect(list.data.map((preset: { slug: string }) => preset.slug)).toEqual(["alpha", "beta"]);
    expect(list.data[0]).not.toHaveProperty("designated_version");
    const page = await (await reads.call("GET", "/presets?offset=1&limit=1")).json();
    expect(page.data.map((preset: { slug: string }) => preset.slug)).toEqual(["beta"]);
    expect(page.total_count).toBe(2);

    const versions = await (await reads.call("GET", "/presets/alpha/versions?offset=0&limit=50")).json();
    expect(versions.total_count).toBe(2);
    expect(versions.data.map((version: { version: number; config: { model: string } }) => [version.version, version.config.model])).toEqual([
      [1, "a/1"],
      [2, "a/2"],
    ]);
    const one = await (await reads.call("GET", "/presets/alpha/versions/1")).json();
    expect(one.data.config).toEqual({ model: "a/1" });
  });

  test("unknown preset or version is 404; a bad version or page is 400", async () => {
    expect((await reads.call("GET", "/presets/missing")).status).toBe(404);
    expect((await reads.call("GET", "/presets/missing/versions")).status).toBe(404);
    expect((await reads.call("GET", "/presets/alpha/versions/99")).status).toBe(404);
    expect((await reads.call("GET", "/presets/alpha/versions/one")).status).toBe(400);
    expect((await reads.call("GET", "/presets?limit=0")).status).toBe(400);
    expect((await reads.call("GET", "/presets?limit=101")).status).toBe(400);
    expect((await reads.call("GET", "/presets?offset=-1")).status).toBe(400);
  });

  test("presets belong to the key's workspace: another workspace neither sees nor shares them", async () => {
    const workspace = (await (await reads.call("POST", "/workspaces", { body: { name: "B", slug: "b" } })).json()).data;
    const other = await (await reads.call("POST", "/keys", { body: { name: "b", kind: "management", workspace_id: workspace.id } })).json();
    expect((await reads.call("GET", "/presets/alpha", { key: other.key })).status).toBe(404);
    expect((await (await reads.call("GET", "/presets", { key: other.key })).json()).total_count).toBe(0);
    const own = await (await reads.call("POST", "/presets/alpha/responses", { key: other.key, body: { model: "z/1" } })).json();
    expect(own.data.designated_version.version).toBe(1);
    expect(own.data.workspace_id).toBe(workspace.id);
    const mine = await (await reads.call("GET", "/presets/alpha")).json();
    expect(mine.data.designated_version.version).toBe(2);
  });
});

describe("concurrency over a real socket", () => {
  test("concurrent creations on one slug never lose or duplicate a version", async () => {
    const server = await listening();
    try {
      const count = 40;
      const responses = await Promise.all(
        Array.from({ length: count }, (_, index) =>
          fetch(`${server.url}/api/v1/presets/busy/responses`, {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
            body: JSON.stringify({ model: `m/${index}` }),
          }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(count).fill(200));
      const versions = await Promise.all(responses.map(async (response) => (await response.json()).data.designated_version.version));
      expect(versions.sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, index) => index + 1));
      const listed = await (
        await fetch(`${server.url}/api/v1/presets/busy/versions?limit=100`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
      ).json();
      expect(listed.total_count).toBe(count);
    } finally {
      await server.stop();
    }
  });

  test("a writer that cannot get the database lock in time gets 409, never a 500, and nothing is half-written", async () => {
    const server = await listening({ configText: "storage:\n  busy_timeout_ms: 100\n" });
    const other = new Database(join(server.dataDir, "roundhouse.db"));
    try {
      other.exec("BEGIN IMMEDIATE");
      const response = await fetch(`${server.url}/api/v1/presets/locked/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m/x" }),
      });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({
        error: { code: 409, message: "Resource conflict. Please try again later." },
        service_metadata: null,
        user_id: null,
      });
      other.exec("ROLLBACK");
      const retry = await fetch(`${server.url}/api/v1/presets/locked/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m/x" }),
      });
      expect((await retry.json()).data.designated_version.version).toBe(1);
    } finally {
      other.close();
      await server.stop();
    }
  });
});
