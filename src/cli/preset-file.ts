import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { PresetSnapshot } from "../db/presets.ts";

/** Marks a file as one exported preset; the number changes only with an incompatible layout. */
export const PRESET_FILE_FORMAT = "roundhouse-preset/1";

const Text = T.String({ minLength: 1 });
const Nullable = <S extends ReturnType<typeof T.String>>(schema: S) => T.Union([schema, T.Null()]);

const PresetFields = T.Object(
  {
    id: Text,
    // As the API's: URL-safe and not a dot segment ('.' or '..').
    slug: T.String({ pattern: "^(?!\\.\\.?$)[A-Za-z0-9._~-]{1,256}$" }),
    name: T.String(),
    description: Nullable(T.String()),
    status: Text,
    status_updated_at: Nullable(Text),
    creator_user_id: T.String(),
    designated_version_id: Nullable(Text),
    created_at: Text,
    updated_at: Text,
  },
  { additionalProperties: false },
);

const VersionFields = T.Object(
  {
    id: Text,
    version: T.Integer({ minimum: 1 }),
    config: T.Record(T.String(), T.Unknown()),
    system_prompt: Nullable(T.String()),
    creator_id: T.String(),
    created_at: Text,
    updated_at: Text,
  },
  { additionalProperties: false },
);

export const PresetFile = T.Object(
  { format: T.Literal(PRESET_FILE_FORMAT), preset: PresetFields, versions: T.Array(VersionFields) },
  { additionalProperties: false },
);
export type PresetFile = Static<typeof PresetFile>;

/** The file for one preset: every column except the owning workspace, so it imports into any workspace. */
export function toPresetFile(snapshot: PresetSnapshot): PresetFile {
  const { preset, versions } = snapshot;
  return {
    format: PRESET_FILE_FORMAT,
    preset: {
      id: preset.id,
      slug: preset.slug,
      name: preset.name,
      description: preset.description,
      status: preset.status,
      status_updated_at: preset.statusUpdatedAt,
      creator_user_id: preset.creatorUserId,
      designated_version_id: preset.designatedVersionId,
      created_at: preset.createdAt,
      updated_at: preset.updatedAt,
    },
    versions: versions.map((version) => ({
      id: version.id,
      version: version.version,
      config: version.config,
      system_prompt: version.systemPrompt,
      creator_id: version.creatorId,
      created_at: version.createdAt,
      updated_at: version.updatedAt,
    })),
  };
}

export function serializePresetFile(file: PresetFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Parses and checks one file; the error names the first problem by its JSON path. */
export function parsePresetFile(text: string, source: string): PresetSnapshot {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const problem = Value.Errors(PresetFile, document).First();
  if (problem) {
    const path = problem.path.replace(/^\//, "").replace(/\//g, ".") || "(root)";
    throw new Error(`${source}: ${path}: ${problem.message}`);
  }
  const file = document as PresetFile;
  const numbers = new Set(file.versions.map((version) => version.version));
  const ids = new Set(file.versions.map((version) => version.id));
  if (numbers.size !== file.versions.length) throw new Error(`${source}: versions: a version number appears twice`);
  if (ids.size !== file.versions.length) throw new Error(`${source}: versions: a version id appears twice`);
  const designated = file.preset.designated_version_id;
  if (designated !== null && !ids.has(designated)) {
    throw new Error(`${source}: preset.designated_version_id: ${designated} is not one of the file's versions`);
  }
  const { preset } = file;
  return {
    preset: {
      id: preset.id,
      slug: preset.slug,
      name: preset.name,
      description: preset.description,
      status: preset.status,
      statusUpdatedAt: preset.status_updated_at,
      creatorUserId: preset.creator_user_id,
      designatedVersionId: preset.designated_version_id,
      createdAt: preset.created_at,
      updatedAt: preset.updated_at,
    },
    versions: file.versions.map((version) => ({
      id: version.id,
      version: version.version,
      config: version.config,
      systemPrompt: version.system_prompt,
      creatorId: version.creator_id,
      createdAt: version.created_at,
      updatedAt: version.updated_at,
    })),
  };
}
