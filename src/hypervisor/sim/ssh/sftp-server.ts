/**
 * The SFTP side of the simulator's management-guest endpoint: a directory tree served as '/'.
 * Client paths are normalized below the root; a path that resolves through a symlink to
 * anywhere outside the root is refused (permission denied), so the tree cannot be escaped.
 */
import type { Stats as FsStats } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2, { type Attributes, type SFTPWrapper } from 'ssh2';
import { createRootedPaths, OutsideTreeError } from './rooted-path.js';
const { utils } = ssh2;

const { STATUS_CODE, flagsToString } = utils.sftp;

type Open = { kind: 'file'; fh: FileHandle } | { kind: 'dir'; path: string; done: boolean };

function attrsOf(st: FsStats): Attributes {
  return { mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, atime: Math.floor(st.atimeMs / 1000), mtime: Math.floor(st.mtimeMs / 1000) };
}


function statusOf(err: unknown): number {
  if (err instanceof OutsideTreeError) return STATUS_CODE.PERMISSION_DENIED;
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return STATUS_CODE.NO_SUCH_FILE;
  if (code === 'EACCES' || code === 'EPERM') return STATUS_CODE.PERMISSION_DENIED;
  return STATUS_CODE.FAILURE;
}

export function serveSftp(sftp: SFTPWrapper, root: string): void {
  const handles = new Map<number, Open>();
  let nextHandle = 1;
  const paths = createRootedPaths(root);
  const safe = (p: string, opts: { leaf?: 'nofollow' } = {}) => paths.resolve(p, { nofollow: opts.leaf === 'nofollow' });

  const newHandle = (o: Open) => {
    const id = nextHandle++;
    handles.set(id, o);
    const buf = Buffer.alloc(4);
    buf.writeUInt32BE(id);
    return buf;
  };
  const handleOf = (buf: Buffer) => (buf.length === 4 ? handles.get(buf.readUInt32BE(0)) : undefined);

  function on(event: string, fn: (reqId: number, ...args: never[]) => Promise<void>): void {
    sftp.on(event, (reqId: number, ...args: never[]) => {
      fn(reqId, ...args).catch((err: unknown) => sftp.status(reqId, statusOf(err), (err as Error)?.message));
    });
  }
  const ok = (reqId: number) => sftp.status(reqId, STATUS_CODE.OK);

  on('OPEN', async (reqId, filename: string, flags: number) => {
    const mode = flagsToString(flags) ?? 'r';
    const fh = await open(await safe(filename), mode, 0o644);
    sftp.handle(reqId, newHandle({ kind: 'file', fh }));
  });
  on('READ', async (reqId, handle: Buffer, offset: number, len: number) => {
    const h = handleOf(handle);
    if (h?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
    const buf = Buffer.alloc(Math.min(len, 256 * 1024));
    const { bytesRead } = await h.fh.read(buf, 0, buf.length, offset);
    if (bytesRead === 0) return sftp.status(reqId, STATUS_CODE.EOF);
    sftp.data(reqId, buf.subarray(0, bytesRead));
  });
  on('WRITE', async (reqId, handle: Buffer, offset: number, data: Buffer) => {
    const h = handleOf(handle);
    if (h?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
    await h.fh.write(data, 0, data.length, offset);
    ok(reqId);
  });
  on('FSTAT', async (reqId, handle: Buffer) => {
    const h = handleOf(handle);
    if (h?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
    sftp.attrs(reqId, attrsOf(await h.fh.stat()));
  });
  on('CLOSE', async (reqId, handle: Buffer) => {
    const h = handleOf(handle);
    if (!h) return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
    handles.delete(handle.readUInt32BE(0));
    if (h.kind === 'file') await h.fh.close();
    ok(reqId);
  });
  on('OPENDIR', async (reqId, path: string) => {
    const p = await safe(path);
    if (!(await stat(p)).isDirectory()) return sftp.status(reqId, STATUS_CODE.FAILURE, 'not a directory');
    sftp.handle(reqId, newHandle({ kind: 'dir', path: p, done: false }));
  });
  on('READDIR', async (reqId, handle: Buffer) => {
    const h = handleOf(handle);
    if (h?.kind !== 'dir') return sftp.status(reqId, STATUS_CODE.FAILURE, 'bad handle');
    if (h.done) return sftp.status(reqId, STATUS_CODE.EOF);
    h.done = true;
    const names = await readdir(h.path);
    const entries = await Promise.all(names.map(async (n) => ({ filename: n, longname: n, attrs: attrsOf(await lstat(join(h.path, n))) })));
    if (entries.length === 0) return sftp.status(reqId, STATUS_CODE.EOF);
    sftp.name(reqId, entries);
  });
  on('STAT', async (reqId, path: string) => sftp.attrs(reqId, attrsOf(await stat(await safe(path)))));
  on('LSTAT', async (reqId, path: string) => sftp.attrs(reqId, attrsOf(await lstat(await safe(path, { leaf: 'nofollow' })))));
  on('SETSTAT', async (reqId) => ok(reqId));
  on('FSETSTAT', async (reqId) => ok(reqId));
  on('MKDIR', async (reqId, path: string) => {
    await mkdir(await safe(path));
    ok(reqId);
  });
  on('RMDIR', async (reqId, path: string) => {
    await rmdir(await safe(path, { leaf: 'nofollow' }));
    ok(reqId);
  });
  on('REMOVE', async (reqId, path: string) => {
    await unlink(await safe(path, { leaf: 'nofollow' }));
    ok(reqId);
  });
  on('RENAME', async (reqId, from: string, to: string) => {
    const target = await safe(to);
    try {
      await stat(target);
      return sftp.status(reqId, STATUS_CODE.FAILURE, `${to} exists`); // SFTP v3 rename does not overwrite
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await rename(await safe(from, { leaf: 'nofollow' }), target);
    ok(reqId);
  });
  on('REALPATH', async (reqId, path: string) => {
    const view = await paths.clientView(await safe(path));
    sftp.name(reqId, [{ filename: view, longname: view, attrs: {} as Attributes }]);
  });
  on('READLINK', async (reqId) => sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED));
  on('SYMLINK', async (reqId) => sftp.status(reqId, STATUS_CODE.PERMISSION_DENIED));
  sftp.on('end', () => {
    for (const h of handles.values()) if (h.kind === 'file') void h.fh.close().catch(() => undefined);
    handles.clear();
  });
}

