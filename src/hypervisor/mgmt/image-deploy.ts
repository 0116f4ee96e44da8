/** Deploy onto and capture from a guest's minidisk (docs/rest-interface.md §3.4, §3.5) with zthin's tools. */
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import type { Writable } from 'node:stream';
import { NotSupportedError } from '../../errors.js';
import {
  GuestImageRs, ImageError, ImageRs, type CaptureRequest, type DeployRequest, type ImageRecord, type MgmtCallOptions,
} from '../image-port.js';
import { asImageError, type MgmtContext } from './context.js';
import { checkAbsolutePath, checkImageName, checkOsVersion, joinInside } from './paths.js';
import { transportName } from './image-transfer.js';
import { confinedFileSource, copyStream, openSftpSink, sftpSource } from './transfer.js';

const guestError = (rs: number, msg: string, cause?: unknown) => new ImageError('guest_deploy', rs, msg, { module: 'guest', cause });

/** The ERROR lines of a zthin tool's output, as feilong reports them. */
function errorLines(text: string): string {
  const lines = text.split('\n').filter((l) => l.startsWith('ERROR'));
  return (lines.length > 0 ? lines : text.split('\n').filter(Boolean).slice(-3)).join('\n');
}

/**
 * Progress of a deploy, in bytes of the image file (its size in the repository): zthin's
 * unpackdiskimage writes the disk with dd/zcat and prints no byte count (its trace goes to
 * /var/log/zthin), so the image counts as 0 bytes done while it runs and as all of it once it
 * succeeded; the transport files' bytes, counted as they are copied, follow on top.
 */
export async function deployImage(ctx: MgmtContext, req: DeployRequest, opts: MgmtCallOptions = {}): Promise<void> {
  const userid = req.userid.toUpperCase();
  const file = await imageFileOf(ctx, req);
  if (!file) throw new ImageError('guest_deploy', ImageRs.notFound, `Image with name: ${req.image} does not exist.`);
  opts.onProgress?.({ bytes: 0, total: file.size });
  const unpack = await ctx.run([`${ctx.commands.zthinBin}/unpackdiskimage`, userid, req.vdev, file.path], opts);
  if (unpack.exitCode !== 0) {
    throw guestError(GuestImageRs.unpackFailed,
      `Failed to deploy image to userid: '${userid}', unpackdiskimage failed with rc: ${unpack.exitCode}, error: ${errorLines(`${unpack.stdout}\n${unpack.stderr}`)}`);
  }
  opts.onProgress?.({ bytes: file.size, total: file.size });
  if (req.transportFiles) await punchTransportFiles(ctx, userid, req, { ...opts, onProgress: afterImage(file.size, opts.onProgress) });
  ctx.log.info({ userid, image: req.image, vdev: req.vdev }, 'image deployed');
}

/** Pure: a later part's progress counted on top of the bytes already done (the image's). */
export function afterImage(done: number, onProgress: MgmtCallOptions['onProgress']): MgmtCallOptions['onProgress'] {
  if (!onProgress) return undefined;
  return (p) => onProgress({ bytes: done + p.bytes, ...(p.total !== undefined ? { total: done + p.total } : {}) });
}

/** With the OS version known the file's place is fixed (one stat); otherwise the repository is searched. */
async function imageFileOf(ctx: MgmtContext, req: DeployRequest): Promise<{ path: string; size: number } | undefined> {
  const name = checkImageName(req.image);
  const files = await ctx.files();
  if (!req.osVersion) {
    const record = await ctx.repo.find(files, name);
    return record && { path: record.path, size: record.sizeBytes };
  }
  const path = ctx.repo.imageFile(checkOsVersion(req.osVersion), name);
  const st = await files.statOrUndefined(path);
  return st && { path, size: st.size };
}

/**
 * The config drive goes to the guest's reader. It comes from user@host (remoteHost) or from the
 * operator's image directories (where REST `PUT /files` puts uploads), never from an arbitrary path
 * on the management guest; it is staged in the repository's transport folder, punched, removed.
 */
async function punchTransportFiles(ctx: MgmtContext, userid: string, req: DeployRequest, opts: MgmtCallOptions): Promise<void> {
  const path = checkAbsolutePath(req.transportFiles!);
  const name = transportName(path);
  const files = await ctx.files();
  const dir = ctx.repo.transportDir();
  const staged = joinInside(dir, `${randomUUID()}-${name}`);
  const copyFailed = (err: unknown) =>
    guestError(GuestImageRs.transportFailed, `Failed to deploy image to userid: '${userid}', copy configure drive failed: ${(err as Error).message}`, err);
  const remote = req.remoteHost ? ctx.remote(req.remoteHost) : undefined;
  let sink: Writable | undefined;
  try {
    const sftp = await ctx.ssh.sftp();
    sink = await ctx.intoTransport(files, () => openSftpSink(sftp, staged));
    const source = remote ? await sftpSource(await remote.sftp(), path) : await confinedFileSource(path, ctx.allowedDirs);
    await copyStream(source, sink, { ...opts, onBytes: (n) => ctx.transferred?.('deploy', n) });
  } catch (err) {
    sink?.destroy();
    await files.removeTree(staged).catch(() => undefined);
    throw copyFailed(err);
  } finally {
    await remote?.close();
  }
  try {
    const punch = await ctx.run([ctx.commands.vmur, 'punch', '-r', '-u', userid, '-N', name, staged], opts);
    if (punch.exitCode !== 0) throw copyFailed(new Error(errorLines(`${punch.stdout}\n${punch.stderr}`)));
  } finally {
    await files.removeTree(staged).catch(() => undefined);
  }
}

export async function captureImage(ctx: MgmtContext, req: CaptureRequest, opts: MgmtCallOptions = {}): Promise<ImageRecord> {
  if (req.captureType !== 'rootonly') throw new NotSupportedError('The requested function: capture_type alldisks has not been implemented in current release');
  const userid = req.userid.toUpperCase();
  const name = checkImageName(req.image);
  const osVersion = checkOsVersion(req.osVersion);
  const captureError = (msg: string, cause?: unknown) =>
    new ImageError('guest_capture', GuestImageRs.captureFailed, `Failed to capture userid ${userid} to generate image, error: ${msg}`, { module: 'guest', cause });
  const files = await ctx.files();
  if (await ctx.repo.find(files, name)) {
    throw new ImageError('guest_capture', ImageRs.alreadyExists, `Image import error: image name ${name} already exist in image database`);
  }
  const stagingDir = ctx.repo.stagingDir(osVersion, name);
  const staged = joinInside(stagingDir, req.vdev);
  const dir = ctx.repo.imageDir(osVersion, name);
  const final = ctx.repo.imageFile(osVersion, name);
  try {
    await files.mkdirp(stagingDir);
    await ctx.repo.assertInside(files, stagingDir);
    const made = await ctx.run([`${ctx.commands.zthinBin}/creatediskimage`, userid, req.vdev, staged, '--compression', String(req.compressLevel)], opts);
    if (made.exitCode !== 0) throw captureError(errorLines(`${made.stdout}\n${made.stderr}`));
    await files.mkdirp(dir);
    await ctx.repo.assertInside(files, dir);
    await files.rename(staged, final);
    const facts = await ctx.inspect(final, 'guest_capture', { signal: opts.signal });
    // creatediskimage counts nothing while it runs: the file it made is the capture's one sample
    opts.onProgress?.({ bytes: facts.sizeBytes, total: facts.sizeBytes });
    const record: ImageRecord = { name, osVersion, ...facts, type: req.captureType, comments: null, path: final, lastAccessTime: -1, ...(req.owner ? { owner: req.owner } : {}) };
    await ctx.repo.writeMeta(files, record);
    ctx.log.info({ userid, image: name, vdev: req.vdev }, 'image captured');
    return (await ctx.repo.find(files, name)) ?? record;
  } catch (err) {
    await files.removeTree(dir).catch(() => undefined);
    throw asImageError(err, 'guest_capture', GuestImageRs.captureFailed, (m) => captureError(m).message);
  } finally {
    await files.removeTree(posix.dirname(staged)).catch(() => undefined);
  }
}
