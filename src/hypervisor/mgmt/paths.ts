/**
 * Path safety for the image repository and file URLs: names and URLs can never reach outside the
 * repository or the allowed directories. Rejected: NUL bytes, `..` segments, relative paths,
 * names with path separators. Local files themselves are opened by local-files.ts (no symlinks,
 * checked after opening).
 */
import { posix } from 'node:path';
import { isSafeImageName, isSafeOsVersion, REMOTE_HOST_PATTERN } from '../../api/index.js';
import { InvalidInputError } from '../../errors.js';

const REMOTE_HOST = new RegExp(REMOTE_HOST_PATTERN);

export function checkImageName(name: string): string {
  if (!isSafeImageName(name)) throw new InvalidInputError(`image name ${JSON.stringify(name)} is not allowed: use letters, digits, '.', '_' and '-', no '..'`);
  return name;
}

export function checkOsVersion(os: string): string {
  const lower = os.toLowerCase();
  if (!isSafeOsVersion(lower)) throw new InvalidInputError(`os version ${JSON.stringify(os)} is not allowed`);
  return lower;
}

export function checkRemoteHost(remoteHost: string): { user: string; host: string } {
  if (!REMOTE_HOST.test(remoteHost)) throw new InvalidInputError(`The specified remote_host ${remoteHost} format invalid`);
  const at = remoteHost.indexOf('@');
  return { user: remoteHost.slice(0, at), host: remoteHost.slice(at + 1) };
}

/** An absolute POSIX path without NUL and without '.'/'..' segments. */
export function checkAbsolutePath(path: string): string {
  if (path.includes('\0')) throw new InvalidInputError('path contains a NUL byte');
  if (!path.startsWith('/')) throw new InvalidInputError(`path ${JSON.stringify(path)} is not absolute`);
  if (path.split('/').some((s) => s === '..' || s === '.')) throw new InvalidInputError(`path ${JSON.stringify(path)} contains '.' or '..'`);
  return posix.normalize(path);
}

/** file:///abs/path → '/abs/path' (percent-decoded, then checked). */
export function filePathOfUrl(url: string): string {
  if (!url.startsWith('file:///')) throw new InvalidInputError(`${url} is not a file:/// URL`);
  let path: string;
  try {
    path = decodeURIComponent(url.slice('file://'.length));
  } catch (err) {
    throw new InvalidInputError(`${url} is not a valid URL`, { cause: err });
  }
  return checkAbsolutePath(path);
}

/** Joins segments below root; each segment must be one safe path element. */
export function joinInside(root: string, ...segments: string[]): string {
  for (const s of segments) {
    if (s === '' || s === '.' || s === '..' || s.includes('/') || s.includes('\0')) throw new InvalidInputError(`path element ${JSON.stringify(s)} is not allowed`);
  }
  return posix.join(root, ...segments);
}

/** POSIX shell single-quoting for commands run on the management guest. */
export function shellQuote(arg: string): string {
  if (arg.includes('\0')) throw new InvalidInputError('argument contains a NUL byte');
  return /^[A-Za-z0-9_./:@=+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
