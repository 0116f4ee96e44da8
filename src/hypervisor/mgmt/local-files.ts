/**
 * Opening local files on behalf of a request (file:// imports and exports, REST /files): only
 * inside the configured directories, and never through a symlink. The file is opened first and
 * what was opened is checked afterwards (fstat + the real path of the descriptor), so there is no
 * window between a check and the open. On Linux a new file is created through the already-opened
 * parent directory (`/proc/self/fd/<dir>/<name>`, the equivalent of openat), so a directory
 * swapped for a symlink after the check cannot redirect the write either.
 */
import { constants, existsSync, realpathSync } from 'node:fs';
import { mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
import { basename, dirname, resolve, sep } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import { checkAbsolutePath } from './paths.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_NOFOLLOW, O_DIRECTORY, O_EXCL, O_NONBLOCK } = constants;
const PROC_FD = '/proc/self/fd';

/** Refused paths say so in one wording (callers map InvalidInputError to their 400). */
export class OutsideAllowedDirsError extends InvalidInputError {}

export interface OpenedFile {
  handle: FileHandle;
  /** the real path of what was opened */
  path: string;
  size: number;
}

function within(dir: string, path: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function realDirs(dirs: readonly string[]): string[] {
  return dirs.map((d) => resolve(d)).filter((d) => existsSync(d)).map((d) => realpathSync(d));
}

/** The path, absolute and lexically inside one of the directories (before anything is opened). */
export function checkInsideDirs(path: string, dirs: readonly string[]): string {
  const lexical = resolve(checkAbsolutePath(path));
  if (!dirs.some((d) => within(resolve(d), lexical))) throw new OutsideAllowedDirsError(`path ${path} is outside the allowed directories`);
  return lexical;
}

/** Where the descriptor really points (Linux: the fd's magic link; elsewhere the path it was opened by). */
async function realOfHandle(handle: FileHandle, openedAs: string): Promise<string> {
  if (existsSync(PROC_FD)) return realpath(`${PROC_FD}/${handle.fd}`);
  return realpath(openedAs);
}

async function confirmInside(handle: FileHandle, openedAs: string, path: string, dirs: readonly string[]): Promise<string> {
  const real = await realOfHandle(handle, openedAs);
  if (!realDirs(dirs).some((d) => within(d, real))) {
    await handle.close();
    throw new OutsideAllowedDirsError(`path ${path} resolves outside the allowed directories`);
  }
  return real;
}

function refuseLink(err: unknown, path: string): never {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK') throw new OutsideAllowedDirsError(`path ${path} is a symbolic link`, { cause: err });
  throw err;
}

// O_NONBLOCK: opening a FIFO planted in a directory must not hang the request (no effect on regular files).

/** Opens an existing regular file for reading (ENOENT and other errors pass through unchanged). */
export async function openConfinedForRead(path: string, dirs: readonly string[]): Promise<OpenedFile> {
  const lexical = checkInsideDirs(path, dirs);
  const handle = await open(lexical, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((err: unknown) => refuseLink(err, path));
  const real = await confirmInside(handle, lexical, path, dirs);
  const st = await handle.stat();
  if (!st.isFile()) {
    await handle.close();
    throw new InvalidInputError(`path ${path} is not a regular file`);
  }
  return { handle, path: real, size: st.size };
}

export interface WriteOptions {
  /** create missing parent directories (inside the allowed directory) first */
  mkdirs?: boolean;
  /** refuse an existing file instead of replacing its contents */
  exclusive?: boolean;
}

/**
 * Opens a file for writing inside the directories: the parent directory is opened and checked
 * first, the file is then created through that descriptor without following a symlink, and only
 * after the check is the old content (if any) truncated.
 */
export async function openConfinedForWrite(path: string, dirs: readonly string[], opts: WriteOptions = {}): Promise<OpenedFile> {
  const lexical = checkInsideDirs(path, dirs);
  const parent = dirname(lexical);
  if (opts.mkdirs) await mkdir(parent, { recursive: true });
  const dir = await open(parent, O_RDONLY | O_DIRECTORY).catch((err: unknown) => refuseLink(err, path));
  let handle: FileHandle;
  try {
    await confirmInside(dir, parent, path, dirs);
    const viaDir = existsSync(PROC_FD) ? `${PROC_FD}/${dir.fd}/${basename(lexical)}` : lexical;
    handle = await open(viaDir, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | (opts.exclusive ? O_EXCL : 0), 0o644).catch((err: unknown) => refuseLink(err, path));
  } finally {
    await dir.close().catch(() => undefined);
  }
  const real = await confirmInside(handle, lexical, path, dirs);
  const st = await handle.stat();
  if (!st.isFile()) {
    await handle.close();
    throw new InvalidInputError(`path ${path} is not a regular file`);
  }
  await handle.truncate(0);
  return { handle, path: real, size: 0 };
}
