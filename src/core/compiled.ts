import { pathToFileURL } from "node:url";

/**
 * Whether this process is a compiled binary (build.ts): its main module then lives in Bun's embedded
 * file system (`/$bunfs/root/…`, or `B:\~BUN\root\…` on Windows), not on disk.
 */
export function isCompiledBinary(): boolean {
  return Bun.main.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(Bun.main);
}

/**
 * The URL of a module compiled into the binary as its own entry point (a thread's), by its path from
 * the project root: build.ts compiles under `--root` the project root, so it sits there beside the
 * binary's main module. Not `import.meta.url`: the bundler bakes that as the source file's path on
 * the machine that built the binary.
 */
export function compiledModuleUrl(pathFromRoot: string): URL {
  return new URL(`./${pathFromRoot}`, pathToFileURL(Bun.main));
}
