import { readdir } from "node:fs/promises";
import { extname, join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { parse as parseYaml } from "yaml";
import { connectionKeyProblem } from "../core/connection-key.ts";
import { schemaProblems } from "./problems.ts";
import { FeatureConfig } from "./schema.ts";

const FEATURE_FILE = /\.(ya?ml|json)$/i;

/**
 * Reads one feature per file from `dir` (.yaml, .yml or .json; other files are skipped), in name order.
 * Returns the features or the problems, each naming its file.
 */
export async function readFeatureFiles(dir: string): Promise<{ features: Array<{ feature: FeatureConfig; file: string }>; problems: string[] }> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isFile() && FEATURE_FILE.test(entry.name)).map((entry) => entry.name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "does not exist" : code === "ENOTDIR" ? "is not a directory" : code === "EACCES" ? "cannot be read (permission denied)" : String(error);
    return { features: [], problems: [`interns.features_dir: ${dir} ${why}`] };
  }
  const features: Array<{ feature: FeatureConfig; file: string }> = [];
  const problems: string[] = [];
  for (const name of names.sort()) {
    const file = join(dir, name);
    let document: unknown;
    try {
      const text = await Bun.file(file).text();
      document = extname(name).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
    } catch (error) {
      problems.push(`${file}: not valid ${extname(name).slice(1).toUpperCase()}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      continue;
    }
    const candidate = Value.Default(FeatureConfig, structuredClone(document ?? {}));
    const found = schemaProblems(FeatureConfig, candidate);
    if (found.length > 0) {
      problems.push(...found.map((problem) => `${file}: ${problem}`));
      continue;
    }
    features.push({ feature: candidate as FeatureConfig, file });
  }
  return { features, problems };
}

/**
 * What is wrong with a set of features: a duplicated id, a connection key of no known form, or a key
 * listed both as required and optional. `where` names a feature for the message (its file or index).
 */
export function featureProblems(features: Array<{ feature: FeatureConfig; where: string }>, mcpCatalog: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const { feature, where } of features) {
    const earlier = seen.get(feature.id);
    if (earlier) problems.push(`${where}: feature id '${feature.id}' is already declared by ${earlier}`);
    else seen.set(feature.id, where);
    for (const [list, keys] of [["requires", feature.requires], ["optional", feature.optional]] as const) {
      for (const [index, key] of keys.entries()) {
        const problem = connectionKeyProblem(key, mcpCatalog);
        if (problem) problems.push(`${where}.${list}[${index}]: '${key}' ${problem}`);
      }
    }
    const both = feature.requires.filter((key) => feature.optional.includes(key));
    if (both.length > 0) problems.push(`${where}: ${both.join(", ")} listed as both required and optional`);
  }
  return problems;
}
