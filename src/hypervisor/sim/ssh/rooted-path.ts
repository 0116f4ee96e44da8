/** Client paths of the simulator's management guest, confined to one local directory tree. */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, posix, sep } from 'node:path';

/** A path that would leave the tree (through '..' or a symlink). */
export class OutsideTreeError extends Error {}

export interface RootedPaths {
  root: string;
  /**
   * The local path of a client path, after checking that its existing part (itself, or its parent
   * for a new entry; the parent only with nofollow) resolves inside the tree.
   */
  resolve(clientPath: string, opts?: { nofollow?: boolean }): Promise<string>;
  /** The client's view of a local path inside the tree ('/…'). */
  clientView(localPath: string): Promise<string>;
}

export function createRootedPaths(root: string): RootedPaths {
  const realRoot = realpath(root);
  const inside = async (real: string) => {
    const r = await realRoot;
    return real === r || real.startsWith(r + sep);
  };
  return {
    root,
    async resolve(clientPath, opts = {}) {
      if (clientPath.includes('\0')) throw new OutsideTreeError('path contains a NUL byte');
      const path = join(root, posix.normalize(`/${clientPath}`));
      let real: string;
      try {
        real = opts.nofollow ? join(await realpath(dirname(path)), basename(path)) : await realpath(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        real = join(await realpath(dirname(path)), basename(path));
      }
      if (!(await inside(real))) throw new OutsideTreeError(`${clientPath} is outside the served tree`);
      return path;
    },
    async clientView(localPath) {
      const r = await realRoot;
      let real = localPath;
      try {
        real = await realpath(localPath);
      } catch {
        // a path that does not exist yet keeps its lexical form
      }
      const prefix = real.startsWith(r) ? r : root;
      const rel = real.slice(prefix.length).split(sep).join('/');
      return rel.startsWith('/') ? rel : `/${rel}`;
    },
  };
}
