import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { GatewayError } from "../core/errors.ts";
import type { PresetSnapshot } from "../db/presets.ts";
import { LOCATION_HELP, LOCATION_OPTIONS, parseCommand, runSubcommand } from "./args.ts";
import { loadCliConfig, openStores, resolveWorkspace } from "./context.ts";
import { CliError, printLine, UsageError } from "./output.ts";
import { parsePresetFile, serializePresetFile, toPresetFile } from "./preset-file.ts";

export const PRESETS_HELP = `Usage: roundhouse presets <command> [options]

Exports and imports presets with all their versions, one JSON file per preset (<slug>.json).
Exporting and then importing into an empty database reproduces every preset exactly: ids, version
numbers, timestamps, system prompts, configs and the designated version.

Commands:
  export   write one file per preset
  import   read preset files into a workspace

Run 'roundhouse presets <command> --help' for its options.

Exit codes: 0 success, 1 runtime failure, 2 bad usage or configuration.`;

const EXPORT_HELP = `Usage: roundhouse presets export [--workspace ID_OR_SLUG] [--out DIR] [SLUG...] [--config PATH] [--data-dir DIR]

Writes <slug>.json for every preset of the workspace, or only for the SLUGs named, overwriting files
of the same name.

Options:
  --workspace ID_OR_SLUG    the workspace to export (default: the first workspace)
  --out DIR                 where to write the files (default: the current directory; created if needed)
${LOCATION_HELP}
  -h, --help                show this help

Exit codes: 0 exported, 1 runtime failure (e.g. no such preset or workspace), 2 bad usage or configuration.`;

const IMPORT_HELP = `Usage: roundhouse presets import [--workspace ID_OR_SLUG] [--replace] FILE...|DIR [--config PATH] [--data-dir DIR]

Imports preset files (a directory means every *.json file in it) into a workspace in one transaction:
either every preset is imported or nothing is written. A preset whose slug already exists in the
workspace stops the import unless --replace, which replaces that preset and all its versions.

Options:
  --workspace ID_OR_SLUG    the target workspace (default: the first workspace, created if none exists)
  --replace                 replace presets whose slug already exists
${LOCATION_HELP}
  -h, --help                show this help

Exit codes: 0 imported, 1 nothing imported (an invalid file, a slug that exists without --replace, an
id already used elsewhere in the database), 2 bad usage or configuration.`;

export async function presets(argv: string[]): Promise<void> {
  return runSubcommand("presets", PRESETS_HELP, { export: exportPresets, import: importPresets }, argv);
}

async function exportPresets(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("presets export", argv, {
    ...LOCATION_OPTIONS,
    workspace: { type: "string" },
    out: { type: "string" },
  });
  if (values.help) return printLine(EXPORT_HELP);
  const out = resolve(values.out ?? ".");
  const stores = await openStores(await loadCliConfig(values));
  try {
    const workspace = await resolveWorkspace(stores, values.workspace, { create: false });
    if (!workspace) {
      if (positionals.length > 0) throw new CliError(`Preset '${positionals[0]}' not found: the database has no workspace`);
      return printLine("No presets to export: the database has no workspace yet.");
    }
    let snapshots: PresetSnapshot[];
    try {
      snapshots = await stores.presets.snapshots(workspace.id, positionals.length > 0 ? [...new Set(positionals)] : undefined);
    } catch (error) {
      if (error instanceof GatewayError && error.code === "not_found") throw new CliError(`${error.message} in workspace ${workspace.slug}`);
      throw error;
    }
    mkdirSync(out, { recursive: true });
    for (const snapshot of snapshots) {
      const file = join(out, `${snapshot.preset.slug}.json`);
      writeFileSync(file, serializePresetFile(toPresetFile(snapshot)));
      printLine(`wrote ${file} (${snapshot.versions.length} version${snapshot.versions.length === 1 ? "" : "s"})`);
    }
    printLine(`Exported ${snapshots.length} preset${snapshots.length === 1 ? "" : "s"} of workspace ${workspace.slug}.`);
  } finally {
    await stores.close();
  }
}

/** FILE... | DIR → the files to read, in a stable order; a missing path is bad usage. */
function presetFiles(paths: string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    if (!existsSync(path)) throw new UsageError(`no such file or directory: ${path}`, "presets import");
    if (statSync(path).isDirectory()) {
      const found = readdirSync(path)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => join(path, name));
      if (found.length === 0) throw new UsageError(`no .json files in ${path}`, "presets import");
      files.push(...found);
    } else {
      files.push(path);
    }
  }
  return files;
}

async function importPresets(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand("presets import", argv, {
    ...LOCATION_OPTIONS,
    workspace: { type: "string" },
    replace: { type: "boolean" },
  });
  if (values.help) return printLine(IMPORT_HELP);
  if (positionals.length === 0) throw new UsageError("give the preset files or a directory to import", "presets import");
  const files = presetFiles(positionals);
  const snapshots = files.map((file) => {
    try {
      return parsePresetFile(readFileSync(file, "utf8"), file);
    } catch (error) {
      throw new CliError(`${error instanceof Error ? error.message : String(error)}; nothing was imported`);
    }
  });
  const seen = new Map<string, string>();
  for (const [index, snapshot] of snapshots.entries()) {
    const earlier = seen.get(snapshot.preset.slug);
    if (earlier) throw new CliError(`${files[index]} and ${earlier} both hold preset '${snapshot.preset.slug}'; nothing was imported`);
    seen.set(snapshot.preset.slug, files[index]!);
  }
  const config = await loadCliConfig(values);
  const stores = await openStores(config);
  try {
    const workspace = await resolveWorkspace(stores, values.workspace, { create: true });
    let result: { created: string[]; replaced: string[] };
    try {
      result = await stores.presets.restore(workspace.id, snapshots, { replace: values.replace ?? false });
    } catch (error) {
      if (error instanceof GatewayError && error.code === "conflict") {
        const hint = error.metadata?.existing_slugs ? " (pass --replace to replace them)" : "";
        throw new CliError(`${error.message}${hint}; nothing was imported`);
      }
      throw error;
    }
    for (const slug of result.created) printLine(`imported ${slug}`);
    for (const slug of result.replaced) printLine(`replaced ${slug}`);
    printLine(`Imported ${snapshots.length} preset${snapshots.length === 1 ? "" : "s"} into workspace ${workspace.slug}.`);
  } finally {
    await stores.close();
  }
}
