/** Image import and export (docs/rest-interface.md §3.11), streamed through SFTP. */
import { posix } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import { ImageError, ImageRs, type ExportRequest, type ExportResult, type ImageRecord, type ImportRequest, type MgmtCallOptions } from '../image-port.js';
import { asImageError, type MgmtContext } from './context.js';
import { isRawImageOs } from './image-header.js';
import { checkInsideDirs } from './local-files.js';
import { checkImageName, checkOsVersion, filePathOfUrl } from './paths.js';
import type { SshConnection } from './ssh-connection.js';
import { confinedFileSink, confinedFileSource, copyStream, httpSource, SizeLimitError, sftpSink, sftpSource, type Source } from './transfer.js';

const MD5 = /^[0-9a-fA-F]{32}$/;

interface OpenedSource {
  source: Source;
  /** connection to close after the copy, for remote_host sources */
  remote?: SshConnection;
  rs: number;
  text: (msg: string) => string;
  /** the copy stops (and the import fails) beyond this many bytes */
  maxBytes?: number;
}

/** Checks the URL and opens the source before anything is written (bad input touches nothing). */
async function openSource(ctx: MgmtContext, req: ImportRequest, signal?: AbortSignal): Promise<OpenedSource> {
  const scheme = /^([a-z]+):/i.exec(req.url)?.[1]?.toLowerCase();
  if (scheme === 'file' && req.remoteHost) {
    const path = filePathOfUrl(req.url);
    const remote = ctx.remote(req.remoteHost);
    const text = (m: string) => `Image import error: Copying image file from remote filesystem failed with error ${m}`;
    try {
      return { source: await sftpSource(await remote.sftp(), path), remote, rs: ImageRs.remoteCopyFailed, text };
    } catch (err) {
      await remote.close();
      throw asImageError(err, 'image_import', ImageRs.remoteCopyFailed, text);
    }
  }
  if (scheme === 'file') {
    const path = filePathOfUrl(req.url);
    const text = (m: string) => `Import image from local file system failed with error ${m}`;
    try {
      return { source: await confinedFileSource(path, ctx.allowedDirs), rs: ImageRs.localCopyFailed, text };
    } catch (err) {
      throw asImageError(err, 'image_import', ImageRs.localCopyFailed, text);
    }
  }
  if (scheme === 'http' || scheme === 'https') {
    return { source: await httpSource(req.url, signal, ctx.http), rs: ImageRs.httpFailed, text: (m) => `Import image from http server failed with reason ${m}`, maxBytes: ctx.http.maxBytes };
  }
  throw new ImageError('image_import', 2, `No image schema found for ${scheme ?? req.url}`);
}

export async function importImage(ctx: MgmtContext, req: ImportRequest, opts: MgmtCallOptions = {}): Promise<ImageRecord> {
  const name = checkImageName(req.name);
  const osVersion = checkOsVersion(req.osVersion);
  if (req.md5sum !== undefined && !MD5.test(req.md5sum)) throw new InvalidInputError(`md5sum ${req.md5sum} is not 32 hex digits`);
  const files = await ctx.files();
  if (await ctx.repo.find(files, name)) {
    throw new ImageError('image_import', ImageRs.alreadyExists, `Image import error: image name ${name} already exist in image database`);
  }
  const raw = isRawImageOs(osVersion);
  if (raw && req.diskType !== 'DASD' && req.diskType !== 'SCSI') {
    throw new ImageError('image_import', ImageRs.other, 'Image import error: Disk type is required for RHCOS image import, the value should be DASD or SCSI');
  }
  const opened = await openSource(ctx, req, opts.signal);
  const dir = ctx.repo.imageDir(osVersion, name);
  const final = ctx.repo.imageFile(osVersion, name);
  const part = `${final}.part`;
  try {
    await files.mkdirp(dir);
    await ctx.repo.assertInside(files, dir);
    const copied = await copyStream(opened.source, sftpSink(await ctx.ssh.sftp(), part), { ...opts, maxBytes: opened.maxBytes, onBytes: (n) => ctx.transferred?.('import', n) }).catch((err: unknown) => {
      throw err instanceof SizeLimitError ? new ImageError('image_import', opened.rs, opened.text(err.message), { cause: err }) : asImageError(err, 'image_import', opened.rs, opened.text);
    });
    const facts = await ctx.inspect(part, 'image_import', { signal: opts.signal, raw });
    if (facts.md5sum !== copied.md5 || (req.md5sum && req.md5sum.toLowerCase() !== facts.md5sum)) {
      throw new ImageError('image_import', ImageRs.md5Mismatch, 'Image import error: The md5sum after import is not same as source image, it is possible that the image has been broken during import');
    }
    await files.rename(part, final);
    const record: ImageRecord = {
      name, osVersion, ...facts, type: 'rootonly',
      comments: req.diskType ? `{'disk_type': '${req.diskType.toUpperCase()}'}` : null,
      path: final, lastAccessTime: -1, ...(req.owner ? { owner: req.owner } : {}),
    };
    await ctx.repo.writeMeta(files, record);
    ctx.log.info({ image: name, bytes: copied.bytes, md5: facts.md5sum }, 'image imported');
    return (await ctx.repo.find(files, name)) ?? record;
  } catch (err) {
    // any failure removes the folder, as the reference does
    await files.removeTree(dir).catch((e: unknown) => ctx.log.warn({ err: e, dir }, 'could not remove a failed import'));
    throw asImageError(err, 'image_import', ImageRs.other, (m) => `Image import error: ${m}`);
  } finally {
    await opened.remote?.close();
  }
}

export async function exportImage(ctx: MgmtContext, req: ExportRequest, opts: MgmtCallOptions = {}): Promise<ExportResult> {
  checkImageName(req.name);
  const scheme = /^([a-z]+):/i.exec(req.destUrl)?.[1]?.toLowerCase();
  if (scheme !== 'file') throw new ImageError('image_export', 2, `No image schema found for ${scheme ?? req.destUrl}`);
  const destPath = filePathOfUrl(req.destUrl);
  if (!req.remoteHost) checkInsideDirs(destPath, ctx.allowedDirs);
  const files = await ctx.files();
  const record = await ctx.repo.find(files, req.name);
  if (!record) throw new ImageError('image_export', ImageRs.notFound, `The image record of ${req.name} does not exist`);
  if (!req.remoteHost) {
    const text = (m: string) => `Export image to local file system failed: ${m}`;
    // the local side first: a refused path never opens the repository file
    const sink = await confinedFileSink(destPath, ctx.allowedDirs).catch((err: unknown) => {
      throw asImageError(err, 'image_export', ImageRs.exportLocalFailed, text);
    });
    try {
      await copyStream(await sftpSource(await ctx.ssh.sftp(), record.path), sink, { ...opts, onBytes: (n) => ctx.transferred?.('export', n) });
    } catch (err) {
      sink.destroy();
      throw asImageError(err, 'image_export', ImageRs.exportLocalFailed, text);
    }
  } else {
    const source = await sftpSource(await ctx.ssh.sftp(), record.path);
    const remote = ctx.remote(req.remoteHost!);
    const text = (m: string) => `Image Export error: Failed to copy image file to remote host with reason: ${m}`;
    try {
      const rfiles = await remote.sftp();
      await copyStream(source, sftpSink(rfiles, destPath), { ...opts, onBytes: (n) => ctx.transferred?.('export', n) });
    } catch (err) {
      source.stream.destroy();
      throw asImageError(err, 'image_export', ImageRs.exportRemoteFailed, text);
    } finally {
      await remote.close();
    }
  }
  ctx.log.info({ image: record.name, dest: req.destUrl, remoteHost: req.remoteHost }, 'image exported');
  return { name: record.name, path: req.destUrl, osVersion: record.osVersion, md5sum: record.md5sum, comments: record.comments };
}

/** basename of a transport file path, for its staged copy and its reader file name. */
export function transportName(path: string): string {
  return posix.basename(path).replace(/[^A-Za-z0-9._-]/g, '_') || 'transport';
}
