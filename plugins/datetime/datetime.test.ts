import { describe, expect, test } from "bun:test";
import { testPluginContext } from "../../test/helpers/plugin-context.ts";
import plugin, { datetimeTool, isoDateTime } from "./index.ts";

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;

async function call(args: Record<string, unknown>, parameters: { timezone?: string } = {}) {
  return datetimeTool.run(testPluginContext(), { function: "datetime", arguments: args, parameters, callId: "call-1", state: new Map() });
}

describe("datetime", () => {
  test("formats a moment with the zone's offset", () => {
    const moment = new Date("2026-01-15T23:30:05Z");
    expect(isoDateTime(moment, "Asia/Tokyo")).toBe("2026-01-16T08:30:05+09:00");
    expect(isoDateTime(moment, "America/St_Johns")).toBe("2026-01-15T20:00:05-03:30");
    expect(isoDateTime(moment, "UTC")).toBe("2026-01-15T23:30:05+00:00");
    // Summer time moves the offset.
    expect(isoDateTime(new Date("2026-07-15T12:00:00Z"), "Europe/Paris")).toBe("2026-07-15T14:00:00+02:00");
    expect(isoDateTime(new Date("2026-01-15T00:00:00Z"), "Europe/Paris")).toBe("2026-01-15T01:00:00+01:00");
  });

  test("answers the current time in UTC by default", async () => {
    const before = Date.now();
    const result = await call({});
    const after = Date.now();
    expect(result.isError).toBeUndefined();
    const content = result.content as { datetime: string; timezone: string };
    expect(content.timezone).toBe("UTC");
    expect(content.datetime).toMatch(ISO_WITH_OFFSET);
    expect(content.datetime.endsWith("+00:00")).toBe(true);
    const moment = Date.parse(content.datetime);
    expect(moment).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(moment).toBeLessThanOrEqual(after);
    expect(result.display).toEqual(content);
  });

  test("uses the request's time zone, and the model's over it", async () => {
    const fromRequest = await call({}, { timezone: "Asia/Kolkata" });
    expect(fromRequest.content).toMatchObject({ timezone: "Asia/Kolkata" });
    expect((fromRequest.content as { datetime: string }).datetime.endsWith("+05:30")).toBe(true);
    const fromModel = await call({ timezone: "Asia/Tokyo" }, { timezone: "Asia/Kolkata" });
    expect(fromModel.content).toMatchObject({ timezone: "Asia/Tokyo" });
    expect((fromModel.content as { datetime: string }).datetime.endsWith("+09:00")).toBe(true);
    // The canonical spelling is reported.
    expect((await call({ timezone: "utc" })).content).toMatchObject({ timezone: "UTC" });
  });

  test("an unknown time zone is an error result naming it and where it came from", async () => {
    const fromRequest = await call({}, { timezone: "Mars/Olympus" });
    expect(fromRequest.isError).toBe(true);
    expect(fromRequest.content).toBe('datetime failed: parameters.timezone: unknown time zone "Mars/Olympus" (use an IANA name such as Europe/Paris or UTC)');
    const fromModel = await call({ timezone: "Nowhere/City" });
    expect(fromModel.isError).toBe(true);
    expect(String(fromModel.content)).toContain('arguments.timezone: unknown time zone "Nowhere/City"');
  });

  test("the plugin contributes the tool and has no request-level config", () => {
    expect(plugin.id).toBe("datetime");
    expect(plugin.apiVersion).toBe(2);
    expect(plugin.serverTools?.map((tool) => tool.name)).toEqual(["datetime"]);
    expect(plugin.prepareRequest).toBeUndefined();
  });
});
