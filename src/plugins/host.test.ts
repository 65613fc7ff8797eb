/**
 * The plugin host: resolving a request's plugins (unknown ids, uninstalled spec plugins, `enabled:
 * false`, config validated against each plugin's schema, model aliases) and the hook order of the
 * contract, with small fake plugins that record what they see.
 */
import { describe, expect, test } from "bun:test";
import { Type as T } from "@sinclair/typebox";
import type { CanonicalRequest, CanonicalResponse, StreamPart } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { req } from "../../test/helpers/routing.ts";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import type { AttemptInfo, AttemptResult, PluginDefinition, PluginDefinitionV2 } from "./contract.ts";
import { type AnyPluginDefinition, PluginHost } from "./host.ts";

const log: string[] = [];
const attempt = {} as AttemptInfo;
const context = testPluginContext();

function textOf(request: CanonicalRequest): string {
  const part = request.messages[0]!.content[0]!;
  return part.type === "text" ? part.text : "";
}
function withText(request: CanonicalRequest, text: string): CanonicalRequest {
  return { ...request, messages: [{ role: "user", content: [{ type: "text", text }] }] };
}
function answer(text: string): CanonicalResponse {
  return { output: [{ type: "text", text }], finishReason: "stop" };
}
function answerText(result: AttemptResult): string {
  if (result.kind !== "json") throw new Error("expected JSON");
  const block = result.response.output[0]!;
  return block.type === "text" ? block.text : "";
}

/** A plugin whose every hook tags what passes through with its name. */
function tagger(id: string, extra: Partial<PluginDefinition<any>> = {}): PluginDefinition<any> {
  return {
    apiVersion: 1,
    id,
    configSchema: T.Object({ level: T.Optional(T.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    transformRequest: (request) => withText(request, `${textOf(request)}>${id}`),
    async wrapExecute(run) {
      log.push(`${id}:before`);
      const result = await run();
      log.push(`${id}:after`);
      return result;
    },
    transformResponse: (response) => answer(`${(response.output[0] as { text: string }).text}<${id}`),
    async *transformStream(parts) {
      for await (const part of parts) yield part.type === "text-delta" ? { ...part, text: `${part.text}<${id}` } : part;
    },
    onError: (error) => new GatewayError(error.code, `${error.message}<${id}`),
    ...extra,
  };
}

function host(...definitions: PluginDefinition<any>[]): PluginHost {
  return new PluginHost(new Map(definitions.map((definition) => [definition.id, definition])));
}

const thrown = (run: () => unknown): GatewayError => {
  try {
    run();
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error("expected a throw");
};

describe("resolve", () => {
  test("a plugin of the spec this gateway could not load is a 400 saying it is not installed; turning it off is no error", () => {
    const plugins = host(tagger("a"));
    expect(() => plugins.resolve([{ id: "web" }])).toThrow("plugins[0]: the plugin 'web' is not installed on this gateway");
    expect(plugins.resolve([{ id: "web", enabled: false }])).toEqual([]);
  });

  const plugins = host(tagger("one"), tagger("two", { models: ["fake/alias"] }));

  test("an unknown id is a 400 naming it and the installed plugins", () => {
    const error = thrown(() => plugins.resolve([{ id: "one" }, { id: "nope" }]));
    expect(error.status).toBe(400);
    expect(error.message).toBe("plugins[1].id: unknown plugin 'nope' (installed: one, two)");
  });

  test("a plugin of the spec that is not installed is a 400 saying so", () => {
    const error = thrown(() => plugins.resolve([{ id: "web", max_results: 3 }]));
    expect(error.status).toBe(400);
    expect(error.message).toBe("plugins[0]: the plugin 'web' is not installed on this gateway");
  });

  test("enabled: false drops the plugin (also one that is not installed)", () => {
    expect(plugins.resolve([{ id: "one", enabled: false }, { id: "two", level: 2 }]).map((active) => [active.definition.id, active.config])).toEqual([
      ["two", { level: 2 }],
    ]);
    expect(plugins.resolve([{ id: "web", enabled: false }])).toEqual([]);
    expect(thrown(() => plugins.resolve([{ id: "nope", enabled: false }])).status).toBe(400);
  });

  test("the config is validated against the plugin's own schema, naming the field", () => {
    const error = thrown(() => plugins.resolve([{ id: "one" }, { id: "two", level: 0 }]));
    expect(error.status).toBe(400);
    expect(error.message).toBe("plugins[1].level: must be at least 1");
    expect(thrown(() => plugins.resolve([{ id: "one", colour: "red" }])).message).toBe('plugins[0]: unknown property "colour"');
    expect(thrown(() => plugins.resolve([{ id: "one", level: "high" }])).message).toStartWith("plugins[0].level: expected");
  });

  test("a model alias enables its plugin with an empty config, first", () => {
    const active = plugins.resolve([{ id: "one" }], "fake/alias");
    expect(active.map((plugin) => [plugin.definition.id, plugin.config])).toEqual([
      ["two", {}],
      ["one", {}],
    ]);
    expect(plugins.resolve([{ id: "two", level: 3 }], "fake/alias").map((plugin) => plugin.config)).toEqual([{ level: 3 }]);
    expect(plugins.resolve(undefined, "other/model")).toEqual([]);
    expect(plugins.aliasOf("fake/alias")!.id).toBe("two");
  });
});

describe("hook order", () => {
  test("selectCandidates runs in request order, each seeing the previous choice", async () => {
    const seen: string[] = [];
    const first = tagger("first", {
      selectCandidates: (request) => {
        seen.push(`first saw ${request.model}`);
        return { model: "a/1", models: ["a/1", "a/2"] };
      },
    });
    const second = tagger("second", {
      selectCandidates: (request) => {
        seen.push(`second saw ${request.model} ${request.models?.join(",")}`);
        return { model: `${request.model}-b` };
      },
    });
    const quiet = tagger("quiet", { selectCandidates: () => undefined });
    const plugins = host(first, second, quiet);
    const input = req("x/m", { models: ["x/m", "y/m"] });
    const out = await plugins.selectCandidates(input, plugins.resolve([{ id: "first" }, { id: "second" }, { id: "quiet" }]), context);
    expect(seen).toEqual(["first saw x/m", "second saw a/1 a/1,a/2"]);
    expect(out.model).toBe("a/1-b");
    expect(out.models).toBeUndefined();
    expect(input).toMatchObject({ model: "x/m", models: ["x/m", "y/m"] });
  });

  test("a router's error ends selection", async () => {
    const failing = tagger("failing", {
      selectCandidates: () => {
        throw new GatewayError("not_found", "nothing eligible");
      },
    });
    const plugins = host(failing);
    await expect(plugins.selectCandidates(req("x/m"), plugins.resolve([{ id: "failing" }]), context)).rejects.toThrow("nothing eligible");
  });

  test("transformRequest in request order; the input is not mutated", async () => {
    const plugins = host(tagger("a"), tagger("b"));
    const input = withText(req("x/m"), "q");
    const out = await plugins.transformRequest(input, plugins.resolve([{ id: "b" }, { id: "a" }]), attempt, context);
    expect(textOf(out)).toBe("q>b>a");
    expect(textOf(input)).toBe("q");
  });

  test("wrapExecute nests with the first plugin outermost; transformResponse runs in reverse", async () => {
    log.length = 0;
    const plugins = host(tagger("a"), tagger("b"));
    const result = await plugins.execute(
      async () => {
        log.push("run");
        return { kind: "json", response: answer("r") };
      },
      plugins.resolve([{ id: "a" }, { id: "b" }]),
      attempt,
      req("x/m"),
      context,
    );
    expect(log).toEqual(["a:before", "b:before", "run", "b:after", "a:after"]);
    expect(answerText(result)).toBe("r<b<a");
  });

  test("a wrapper that does not call run short-circuits the attempt; outer wrappers and post-hooks still apply", async () => {
    log.length = 0;
    const cache = tagger("cache", { wrapExecute: async () => ({ kind: "json", response: answer("cached") }) });
    const plugins = host(tagger("a"), cache);
    let ran = false;
    const result = await plugins.execute(
      async () => {
        ran = true;
        return { kind: "json", response: answer("live") };
      },
      plugins.resolve([{ id: "a" }, { id: "cache" }]),
      attempt,
      req("x/m"),
      context,
    );
    expect(ran).toBe(false);
    expect(log).toEqual(["a:before", "a:after"]);
    expect(answerText(result)).toBe("cached<cache<a");
  });

  test("transformStream runs in reverse order", async () => {
    const plugins = host(tagger("a"), tagger("b"));
    async function* upstream(): AsyncIterable<StreamPart> {
      yield { type: "text-delta", text: "x" };
      yield { type: "finish", reason: "stop" };
    }
    const result = await plugins.execute(async () => ({ kind: "stream", parts: upstream() }), plugins.resolve([{ id: "a" }, { id: "b" }]), attempt, req("x/m"), context);
    if (result.kind !== "stream") throw new Error("expected a stream");
    const parts: StreamPart[] = [];
    for await (const part of result.parts) parts.push(part);
    expect(parts).toEqual([
      { type: "text-delta", text: "x<b<a" },
      { type: "finish", reason: "stop" },
    ]);
  });

  test("onError runs in reverse when the attempt fails; a returned error replaces the current one, undefined keeps it", async () => {
    const keep = tagger("keep", { onError: () => undefined });
    const plugins = host(tagger("a"), keep, tagger("b"));
    const failing = async (): Promise<AttemptResult> => {
      throw new GatewayError("unavailable", "down");
    };
    const error = await plugins.execute(failing, plugins.resolve([{ id: "a" }, { id: "keep" }, { id: "b" }]), attempt, req("x/m"), context).catch((caught) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.message).toBe("down<b<a");
    expect(error.status).toBe(503);
  });

  test("a version 2 onError may recover the attempt with a response; earlier plugins are not asked", async () => {
    const asked: string[] = [];
    const first: PluginDefinition = {
      apiVersion: 1,
      id: "first",
      configSchema: T.Object({}),
      onError: () => {
        asked.push("first");
        return undefined;
      },
    };
    const rescue: PluginDefinitionV2 = {
      apiVersion: 2,
      id: "rescue",
      configSchema: T.Object({}),
      onError: () => {
        asked.push("rescue");
        return answer("from the rescue");
      },
    };
    const plugins = new PluginHost(new Map<string, AnyPluginDefinition>([["first", first], ["rescue", rescue]]));
    const failing = async (): Promise<AttemptResult> => {
      throw new GatewayError("unavailable", "down");
    };
    const result = await plugins.execute(failing, plugins.resolve([{ id: "first" }, { id: "rescue" }]), attempt, req("x/m"), context);
    expect(asked).toEqual(["rescue"]);
    expect(answerText(result)).toBe("from the rescue");
  });
});
