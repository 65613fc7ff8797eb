import { describe, expect, test } from "bun:test";
import { PRESET_FILE_FORMAT, parsePresetFile } from "./preset-file.ts";

const file = (slug: string) =>
  JSON.stringify({
    format: PRESET_FILE_FORMAT,
    preset: {
      id: "p1", slug, name: slug, description: null, status: "active", status_updated_at: null, creator_user_id: "u",
      designated_version_id: "v1", created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z",
    },
    versions: [{ id: "v1", version: 1, config: {}, system_prompt: null, creator_id: "u", created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z" }],
  });

describe("preset files", () => {
  test("a slug is refused as the API refuses it: a dot segment or a character that is not URL-safe", () => {
    for (const slug of [".", "..", "a b", "é", ""]) {
      expect(() => parsePresetFile(file(slug), "x.json")).toThrow("x.json: preset.slug:");
    }
    for (const slug of ["...", "v1.2", ".hidden", "a~b"]) expect(parsePresetFile(file(slug), "x.json").preset.slug).toBe(slug);
  });
});
