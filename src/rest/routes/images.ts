/** /images routes (docs/rest-interface.md §1.2 rows 46–50, §1.3, §3.11, §5.11). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { imageNameOf, REMOTE_HOST_PATTERN, type ZImage } from '../../api/index.js';
import type { ImageRecord } from '../../hypervisor/index.js';
import { EmptyOutput, Envelope, ok } from '../envelope.js';
import { OsVersion } from '../schemas.js';
import { StringEnum } from '../validation.js';
import { checkImageNameInput, checkUrlInput, createImageService, imageErrors, isInProgress, type ImageService } from './image-service.js';
import type { RouteDeps } from './route-deps.js';
import { checkSourceHost } from './source-host.js';

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Url = Type.String({ pattern: '^https?:/{2}|^file:/{3}\\w.+$' });
const RemoteHost = Type.String({ pattern: REMOTE_HOST_PATTERN });
const closed = { additionalProperties: false } as const;

const CreateBody = Type.Object({
  image: Type.Object({
    image_name: Name,
    url: Url,
    image_meta: Type.Object({
      os_version: OsVersion,
      md5sum: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{32}$' })),
      disk_type: Type.Optional(StringEnum(['DASD', 'dasd', 'SCSI', 'scsi'])),
    }, closed),
    remote_host: Type.Optional(RemoteHost),
  }, closed),
}, closed);
const ExportBody = Type.Object({ location: Type.Object({ dest_url: Url, remote_host: Type.Optional(RemoteHost) }, closed) }, closed);
const OldExportBody = Type.Object({ image: Type.Object({ image_name: Name, dest_url: Url, remote_host: Type.Optional(RemoteHost) }, closed) }, closed);
const NameParams = Type.Object({ name: Name });
const Query = Type.Object({ imagename: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) }, { additionalProperties: true });

const ImageInfo = Type.Object({
  imagename: Type.String(), imageosdistro: Type.String(), md5sum: Type.String(), disk_size_units: Type.String(),
  image_size_in_bytes: Type.String(), type: Type.String(), comments: Type.Union([Type.String(), Type.Null()]),
  last_access_time: Type.Number(), image_path: Type.Optional(Type.String()),
});
const ExportOutput = Type.Object({
  image_name: Type.String(), image_path: Type.String(), os_version: Type.String(), md5sum: Type.String(), comments: Type.Union([Type.String(), Type.Null()]),
});
const tags = ['images'];

/** What an image still being made says in `comments`: the operation and its progress (README: long operations). */
function inProgressComment(image: ZImage): string {
  const how = image.spec.source.capture ? 'capture' : 'import';
  return `${how} in progress${image.status?.progress ? `: ${image.status.progress.summary}` : ''}`;
}

/**
 * One list entry in the newest (named fields) form; image_path only for rootonly images, as the
 * reference. An image still being made is listed with its progress in `comments` and no size yet.
 */
function toImageInfo(image: ZImage, record: ImageRecord | undefined) {
  const s = image.status ?? {};
  const making = isInProgress(image);
  return {
    imagename: imageNameOf(image),
    imageosdistro: s.osVersion ?? image.spec.source.import?.osVersion ?? image.spec.source.capture?.osVersion ?? '',
    md5sum: s.md5sum ?? '',
    disk_size_units: s.diskSizeUnits ?? '',
    image_size_in_bytes: String(s.imageSizeInBytes ?? ''),
    type: s.type ?? '',
    comments: making ? inProgressComment(image) : (s.comments ?? null),
    last_access_time: record?.lastAccessTime ?? -1,
    ...(s.type === 'rootonly' && s.path ? { image_path: s.path } : {}),
  };
}

async function exportImage(images: ImageService, name: string, destUrl: string, remoteHost?: string) {
  checkImageNameInput(name);
  checkUrlInput('dest_url', destUrl);
  const image = await images.requireReady(name);
  const mgmt = images.mgmt();
  const progress = images.exportProgress(image);
  const out = await mgmt.exportImage({ name: imageNameOf(image), destUrl, ...(remoteHost ? { remoteHost } : {}) }, { onProgress: progress.onProgress })
    .finally(() => progress.flush());
  return { image_name: out.name, image_path: out.path, os_version: out.osVersion, md5sum: out.md5sum, comments: out.comments };
}

const imageRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests, hypervisors, config }) => {
  const images = createImageService({ store: guests.store, hypervisors, config, writes: guests.writes, log: app.log as never });

  app.get('/images', { schema: { summary: 'List images (or one by imagename)', tags, querystring: Query, response: { 200: Envelope(Type.Array(ImageInfo)) } } }, async (req) => {
    const name = req.query.imagename;
    const { items } = await guests.store.list<ZImage>('ZImage');
    const listed = items.filter((i) => i.status?.phase === 'Ready' || isInProgress(i));
    const chosen = name === undefined ? listed : listed.filter((i) => imageNameOf(i).toLowerCase() === name.toLowerCase());
    if (name !== undefined && chosen.length === 0) throw imageErrors.notFound(name);
    const records = await images.accessTimes();
    return ok(chosen.map((i) => toImageInfo(i, records.get(imageNameOf(i).toLowerCase()))));
  });

  app.post('/images', { schema: { summary: 'Import an image', tags, body: CreateBody, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    const { image_name: name, url, image_meta: meta, remote_host: remoteHost } = req.body.image;
    checkImageNameInput(name);
    checkUrlInput('url', url);
    images.mgmt();
    if (!remoteHost) await checkSourceHost(url);
    await images.createAndWait(name, {
      import: {
        url, osVersion: meta.os_version.toLowerCase(),
        ...(remoteHost ? { remoteHost } : {}),
        ...(meta.md5sum ? { md5sum: meta.md5sum } : {}),
        ...(meta.disk_type ? { diskType: meta.disk_type.toUpperCase() as 'DASD' | 'SCSI' } : {}),
      },
    });
    return ok();
  });

  app.delete('/images/:name', { schema: { summary: 'Delete an image (idempotent)', tags, params: NameParams, response: { 200: Envelope(EmptyOutput) } } }, async (req) => {
    checkImageNameInput(req.params.name);
    await images.remove(req.params.name);
    return ok();
  });

  app.put('/images/:name', { schema: { summary: 'Export an image', tags, params: NameParams, body: ExportBody, response: { 200: Envelope(ExportOutput) } } }, async (req) => {
    const { dest_url: destUrl, remote_host: remoteHost } = req.body.location;
    return ok(await exportImage(images, req.params.name, destUrl, remoteHost));
  });

  app.put('/images', { schema: { summary: 'Export an image (older form)', tags, body: OldExportBody, response: { 200: Envelope(ExportOutput) } } }, async (req) => {
    const { image_name: name, dest_url: destUrl, remote_host: remoteHost } = req.body.image;
    return ok(await exportImage(images, name, destUrl, remoteHost));
  });

  app.get('/images/:name/root_disk_size', {
    schema: { summary: 'Root disk size of an image as <n>:CYL or <n>:BLK', tags, params: NameParams, response: { 200: Envelope(Type.String()) } },
  }, async (req) => {
    checkImageNameInput(req.params.name);
    const image = await images.requireReady(req.params.name);
    return ok(image.status?.diskSizeUnits ?? '');
  });
};

export default imageRoutes;
