/**
 * /files (docs/rest-interface.md §1.2 rows 51–52): upload a file to the server and download one from it.
 * PUT streams the raw body (any content type, Content-Length or chunked, empty allowed) into
 * `<first image dir>/imported/<uuid>` and answers its size, file:// URL and md5, as the reference
 * does. POST answers the bytes of `source_file` as application/octet-stream. Both stay inside the
 * configured image directories and never follow a symlink (mgmt/local-files.ts).
 */
import { randomUUID } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { InvalidInputError } from '../../errors.js';
import { copyStream, openConfinedForRead, openConfinedForWrite, type OpenedFile } from '../../hypervisor/index.js';
import { ok } from '../envelope.js';
import { BadRequestError, FeilongError, feilongErrors } from '../feilong-error.js';
import type { RouteDeps } from './route-deps.js';

/** feilong's module id of file operations (docs/rest-interface.md §2.1 "file"). */
const FILE_MODID = 60;
/** A download request is a small JSON object; more is not one. */
const MAX_JSON_BYTES = 64 * 1024;
const IMPORTED = 'imported';

const fileErrors = {
  /** The reference answers 300/60/rs1 for an OSError while writing (a server-side fault). */
  importFailed: (err: unknown) => new FeilongError('HYPERVISOR', {
    overallRC: 300, modID: FILE_MODID, rc: 300, rs: 1,
    errmsg: `File import error: ${(err as Error).message}, please check access right to specified file or folder`,
  }, { cause: err }),
  /** The reference's text with its not-exist status (it answers 300/60/rs2 → 500; a missing file is not a server fault). */
  exportMissing: (path: string) => new FeilongError('NOT_FOUND', {
    overallRC: 404, modID: FILE_MODID, rc: 404, rs: 2, errmsg: `The specific file ${path} for export does not exist`,
  }),
};

function requireDirs(dirs: readonly string[]): readonly string[] {
  if (dirs.length === 0) throw feilongErrors.notImplemented('file transfer without a configured image directory (--image-dir)', FILE_MODID);
  return dirs;
}

/** The request body as a stream; a request without one (Content-Length 0) is an empty file. */
function bodyStream(body: unknown): Readable | undefined {
  return body && typeof (body as Readable).pipe === 'function' ? (body as Readable) : undefined;
}

async function readSmallJson(stream: Readable | undefined): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream ?? []) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BYTES) throw new BadRequestError(`Malformed JSON: the body is larger than ${MAX_JSON_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequestError(`Malformed JSON: ${(err as Error).message}`);
  }
}

function sourceFileOf(body: unknown): string {
  const path = (body as { source_file?: unknown } | null)?.source_file;
  if (typeof path !== 'string' || path === '') throw feilongErrors.invalidArg('source_file must be a non-empty string (an absolute path)');
  return path;
}

async function upload(body: Readable | undefined, dirs: readonly string[], maxBytes: number, declared: number) {
  const target = join(dirs[0]!, IMPORTED, randomUUID());
  if (declared > maxBytes) throw new InvalidInputError(`File import error: the file is larger than the limit of ${maxBytes} bytes`);
  let opened: OpenedFile;
  try {
    opened = await openConfinedForWrite(target, dirs, { mkdirs: true, exclusive: true });
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
    throw fileErrors.importFailed(err);
  }
  const sink = opened.handle.createWriteStream();
  try {
    const copied = await copyStream({ stream: body ?? Readable.from([]) }, sink, { maxBytes });
    return { filesize_in_bytes: copied.bytes, dest_url: `file://${target}`, md5sum: copied.md5 };
  } catch (err) {
    await unlink(opened.path).catch(() => undefined);
    if (err instanceof InvalidInputError) throw err;
    throw fileErrors.importFailed(err);
  }
}

const fileRoutes: FastifyPluginAsync<RouteDeps> = async (app, { config }) => {
  // this group reads its bodies itself, as streams, whatever their content type
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  app.put('/files', { schema: { summary: 'Upload a file (raw body) into the imported/ folder of the first image directory', tags: ['files'] } }, async (req) => {
    const dirs = requireDirs(config.imageDirs);
    const declared = Number(req.headers['content-length'] ?? 0);
    return ok(await upload(bodyStream(req.body), dirs, config.maxUploadBytes, declared));
  });

  app.post('/files', { schema: { summary: 'Download a file inside the image directories ({"source_file": path})', tags: ['files'] } }, async (req, reply) => {
    const dirs = requireDirs(config.imageDirs);
    const path = sourceFileOf(await readSmallJson(bodyStream(req.body)));
    const opened = await openConfinedForRead(path, dirs).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw fileErrors.exportMissing(path);
      throw err;
    });
    return reply.type('application/octet-stream').header('content-length', opened.size).send(opened.handle.createReadStream());
  });
};

export default fileRoutes;
