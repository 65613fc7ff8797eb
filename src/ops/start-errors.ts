/**
 * Start-up failures of the file system and the network, said as sentences an operator can act on
 * ("data_dir /x is a file, not a directory", "cannot listen on 10.9.9.9:8080: that address is not on
 * this host") instead of the runtime's `EEXIST: file already exists, mkdir '/x'`. Only the message
 * changes; the original error stays as the cause.
 */
import { statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

/** A start-up failure outside the configuration (exit 1): the host, its files or its network. */
export class StartError extends Error {
  override name = "StartError";
  /** Keys a first start created before it failed to listen: shown once, or they are lost. */
  generatedAdminKey?: string | null;
  generatedInferenceKey?: string | null;
}

interface SystemError {
  code?: unknown;
  path?: unknown;
  syscall?: unknown;
  message?: unknown;
}

function systemError(error: unknown): SystemError {
  return error !== null && typeof error === "object" ? (error as SystemError) : {};
}

function whoAmI(): string {
  return typeof process.getuid === "function" ? `uid ${process.getuid()}` : "its user";
}

/** The path itself or its nearest existing ancestor that is not a directory, if any. */
function fileInTheWay(path: string): string | undefined {
  for (let current = path; ; current = dirname(current)) {
    try {
      if (!statSync(current).isDirectory()) return current;
    } catch {
      // Not there (yet): look further up.
    }
    if (dirname(current) === current) return undefined;
  }
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

/**
 * The error opening the data directory (its files, the database, the master key file) threw, with a
 * sentence for the failures of the file system; anything else is returned as it is.
 */
export function storageStartError(error: unknown, dataDirSetting: string): unknown {
  const { code, path } = systemError(error);
  const dataDir = resolve(dataDirSetting);
  const where = typeof path === "string" ? resolve(path) : dataDir;
  const subject = inside(where, dataDir) ? `data_dir ${dataDir}` : where;
  const detail = where === dataDir || !inside(where, dataDir) ? "" : ` (${where})`;
  let sentence: string | undefined;
  switch (code) {
    case "EEXIST":
    case "ENOTDIR": {
      const file = fileInTheWay(where) ?? fileInTheWay(dataDir);
      if (file === dataDir) sentence = `data_dir ${dataDir} is a file, not a directory`;
      else if (file !== undefined) sentence = `${subject}: ${file} is a file, not a directory`;
      break;
    }
    case "EACCES":
    case "EPERM":
      sentence = `${subject}: permission denied${detail}; the gateway runs as ${whoAmI()} and must be able to create and write it (or choose another --data-dir)`;
      break;
    case "EROFS":
      sentence = `${subject} is on a read-only file system${detail}`;
      break;
    case "ENOSPC":
      sentence = `${subject}: no space left on the device${detail}`;
      break;
    case "SQLITE_CANTOPEN":
    case "SQLITE_READONLY":
    case "SQLITE_PERM":
      sentence = `data_dir ${dataDir}: the database cannot be opened for writing; the gateway runs as ${whoAmI()} and must be able to write the directory and its files`;
      break;
  }
  return sentence === undefined ? error : new StartError(sentence, { cause: error });
}

/** What listening on `host:port` threw, as a sentence an operator can act on. */
export function listenStartError(error: unknown, host: string, port: number): StartError {
  const { code, message } = systemError(error);
  const address = `${host}:${port}`;
  switch (code) {
    case "EADDRINUSE":
      return new StartError(`cannot listen on ${address}: the port is already in use; stop what listens there or choose another --port`, { cause: error });
    case "EADDRNOTAVAIL":
      return new StartError(`cannot listen on ${address}: that address is not on this host; use one of its addresses, 127.0.0.1 or 0.0.0.0`, { cause: error });
    case "EACCES":
    case "EPERM":
      return new StartError(`cannot listen on ${address}: permission denied (ports below 1024 need privileges; choose another --port)`, { cause: error });
    case "ENOTFOUND":
    case "EAI_NONAME":
    case "EINVAL":
      return new StartError(`cannot listen on ${address}: that is not an address of this host nor a host name that resolves to one`, { cause: error });
    default:
      return new StartError(`cannot listen on ${address}: ${typeof message === "string" ? message : String(error)}`, { cause: error });
  }
}
