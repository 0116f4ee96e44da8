/** Promise helpers over one ssh2 SFTP session, for the few file operations the adapter needs. */
import { posix } from 'node:path';
import type { FileEntryWithStats, SFTPWrapper, Stats } from 'ssh2';

/** SFTP status 2 (SSH_FX_NO_SUCH_FILE). */
export function isNoSuchFile(err: unknown): boolean {
  return (err as { code?: number })?.code === 2;
}

function call<T>(fn: (cb: (err: Error | undefined | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));
}

export function createSftpFiles(sftp: SFTPWrapper) {
  const stat = (path: string) => call<Stats>((cb) => sftp.stat(path, cb));
  const lstat = (path: string) => call<Stats>((cb) => sftp.lstat(path, cb));
  const readdir = (path: string) => call<FileEntryWithStats[]>((cb) => sftp.readdir(path, cb));
  const unlink = (path: string) => call<void>((cb) => sftp.unlink(path, cb));

  async function statOrUndefined(path: string): Promise<Stats | undefined> {
    try {
      return await stat(path);
    } catch (err) {
      if (isNoSuchFile(err)) return undefined;
      throw err;
    }
  }

  /**
   * mkdir -p. The deepest directory is asked first: it usually exists already (the repository's
   * folders), so one stat answers; else the walk goes up to the deepest that exists and makes the rest.
   */
  async function mkdirp(path: string): Promise<void> {
    const parts = path.split('/').filter(Boolean);
    const prefix = (n: number) => `/${parts.slice(0, n).join('/')}`;
    let existing = parts.length;
    while (existing > 0 && !(await statOrUndefined(prefix(existing)))) existing--;
    for (let n = existing + 1; n <= parts.length; n++) {
      const cur = prefix(n);
      await call<void>((cb) => sftp.mkdir(cur, cb)).catch(async (err: unknown) => {
        if (!(await statOrUndefined(cur))) throw err; // lost a race with another mkdir: fine
      });
    }
  }

  /**
   * A directory whose parent exists, in one request: a mkdir that succeeds, or that fails for another
   * reason than a missing parent (OpenSSH answers an existing path with a plain FAILURE), which the
   * write that follows confirms or reports. A missing parent falls back to mkdirp.
   */
  async function ensureDir(path: string): Promise<void> {
    try {
      await call<void>((cb) => sftp.mkdir(path, cb));
    } catch (err) {
      if (isNoSuchFile(err)) await mkdirp(path);
    }
  }

  /**
   * rm -rf without following symlinks. Most paths removed are single staged files: an unlink answers
   * those in one request; a directory refuses it and is walked, its entries told apart by the
   * readdir's own attributes (lstat's), so no entry costs a request of its own beyond its removal.
   */
  async function removeTree(path: string): Promise<void> {
    try {
      return await unlink(path);
    } catch (err) {
      if (isNoSuchFile(err)) return;
    }
    let st: Stats;
    try {
      st = await lstat(path);
    } catch (err) {
      if (isNoSuchFile(err)) return;
      throw err;
    }
    // not a directory: the unlink failed for its own reason, which a second one reports
    if (!st.isDirectory()) return unlink(path);
    await removeDirectory(path);
  }

  async function removeDirectory(path: string): Promise<void> {
    for (const e of await readdir(path)) {
      const child = posix.join(path, e.filename);
      await (e.attrs.isDirectory() ? removeDirectory(child) : unlink(child));
    }
    await call<void>((cb) => sftp.rmdir(path, cb));
  }

  /** The first `length` bytes of a file (fewer if it is shorter). */
  async function readHead(path: string, length: number): Promise<Buffer> {
    const handle = await call<Buffer>((cb) => sftp.open(path, 'r', cb));
    try {
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        // a read at the end reports EOF (status 1) as an error
        const n = await new Promise<number>((resolve, reject) =>
          sftp.read(handle, buf, got, length - got, got, (err, bytesRead) => (err && (err as { code?: number }).code !== 1 ? reject(err) : resolve(err ? 0 : bytesRead))),
        );
        if (n <= 0) break;
        got += n;
      }
      return buf.subarray(0, got);
    } finally {
      await call<void>((cb) => sftp.close(handle, cb)).catch(() => undefined);
    }
  }

  const readText = async (path: string) => String(await call<Buffer>((cb) => sftp.readFile(path, cb)));
  const writeText = (path: string, data: string | Buffer) => call<void>((cb) => sftp.writeFile(path, data, cb));
  const rename = (from: string, to: string) => call<void>((cb) => sftp.rename(from, to, cb));
  const realpath = (path: string) => call<string>((cb) => sftp.realpath(path, cb));

  return { stat, lstat, statOrUndefined, readdir, mkdirp, ensureDir, removeTree, readHead, readText, writeText, rename, unlink, realpath };
}

export type SftpFiles = ReturnType<typeof createSftpFiles>;
