import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, Vdev, described, resourceSchema, type Resource } from './common.js';
import { DEFAULT_HOST } from './host.js';
import type { CrossFieldRule } from './kinds.js';
import { IMAGE_NAME_PATTERN, OS_VERSION_PATTERN, REMOTE_HOST_PATTERN } from './names.js';
import { fixed, type LifecycleTable } from './lifecycle.js';


export const ImageName = Type.String({ pattern: IMAGE_NAME_PATTERN, minLength: 1, maxLength: 128, description: 'name of the image in the host repository' });

export const ImageImportSource = Type.Object(
  {
    url: Type.String({ pattern: '^(https?://|file:///)[^\\s]+$', maxLength: 2048, description: 'file:///path (operator side, or on remoteHost), http:// or https://' }),
    remoteHost: Type.Optional(Type.String({ pattern: REMOTE_HOST_PATTERN, description: 'user@host holding the file:// path; fetched through SFTP' })),
    osVersion: Type.String({ pattern: OS_VERSION_PATTERN, description: 'e.g. rhel8.6, sles15sp4, ubuntu22' }),
    md5sum: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: 'verified after the import' })),
    diskType: Type.Optional(Type.Union([Type.Literal('DASD'), Type.Literal('SCSI')], { description: 'disk kind the image was taken from: DASD or SCSI' })),
  },
  { additionalProperties: false, description: 'import an image file from a URL' },
);

export const ImageCaptureSource = Type.Object(
  {
    guest: Type.String({ minLength: 1, maxLength: 317, description: 'namespace/name of a ZGuest, or a z/VM userid' }),
    captureType: Type.Optional(Type.Union([Type.Literal('rootonly'), Type.Literal('alldisks')], { default: 'rootonly', description: 'rootonly or alldisks' })),
    compressLevel: Type.Optional(Type.Integer({ minimum: 0, maximum: 9, default: 6, description: 'gzip level of the image file, 0 (none) to 9' })),
    osVersion: Type.Optional(Type.String({ pattern: OS_VERSION_PATTERN, description: 'default: the os of the image deployed on the guest, else unknown' })),
    vdev: Type.Optional(described(Vdev, 'disk to capture; default the root disk')),
  },
  { additionalProperties: false, description: 'capture the disk of an existing guest' },
);

/** A long transfer (a ZImage's import, capture or export; a ZGuest's image deploy) as it goes; written at most every few seconds. */
export const TransferProgressStatus = Type.Object(
  {
    operation: Type.Optional(Type.Union(['import', 'capture', 'export', 'deploy'].map((o) => Type.Literal(o)), { description: 'what is moving: import, capture, export or deploy' })),
    bytesDone: Type.Integer({ minimum: 0, description: 'bytes transferred so far' }),
    bytesTotal: Type.Optional(Type.Integer({ minimum: 0, description: 'bytes to transfer, when known' })),
    bytesPerSecond: Type.Optional(Type.Integer({ minimum: 0, description: 'average rate since the transfer began' })),
    summary: Type.String({ description: 'the same in words, e.g. "import: 512.0 MiB / 2.0 GiB (25%) at 80.0 MiB/s"' }),
    updatedAt: Type.String({ description: 'when this sample was taken' }),
  },
  { description: 'progress of the last transfer: bytes done and total, and the rate' },
);

export const ZImageSpec = Type.Object(
  {
    host: Type.Optional(Type.String({ default: DEFAULT_HOST, description: 'name of the ZHost whose repository holds the image' })),
    imageName: Type.Optional(ImageName),
    source: Type.Object(
      { import: Type.Optional(ImageImportSource), capture: Type.Optional(ImageCaptureSource) },
      { additionalProperties: false, description: 'exactly one of import and capture' },
    ),
  },
  { additionalProperties: false, description: 'an image in the host repository, imported from a URL or captured from a guest' },
);
export type ZImageSpec = Static<typeof ZImageSpec>;

export const ZImageStatus = Type.Object({
  ...CommonStatusFields,
  host: Type.Optional(Type.String({ description: 'the ZHost whose repository holds the image' })),
  imageName: Type.Optional(Type.String({ description: 'name of the image in the repository' })),
  osVersion: Type.Optional(Type.String({ description: 'OS of the image' })),
  md5sum: Type.Optional(Type.String({ description: 'MD5 of the image file' })),
  diskSizeUnits: Type.Optional(Type.String({ description: '<n>:CYL or <n>:BLK' })),
  diskType: Type.Optional(Type.String({ description: 'DASD or SCSI' })),
  imageSizeInBytes: Type.Optional(Type.Integer({ description: 'size of the image file' })),
  type: Type.Optional(Type.String({ description: 'rootonly for imports, the capture type for captures' })),
  comments: Type.Optional(Type.String({ description: 'image comments as the repository records them' })),
  path: Type.Optional(Type.String({ description: 'image file on the management guest' })),
  progress: Type.Optional(TransferProgressStatus),
}, { description: 'the image as the repository holds it' });
export type ZImageStatus = Static<typeof ZImageStatus>;

export const ZImageSchema = resourceSchema('ZImage', ZImageSpec, ZImageStatus);
export type ZImage = Resource<ZImageSpec, ZImageStatus>;

/**
 * An export runs in the REST process (a live read of the repository), which writes no status: it puts
 * each progress sample (throttled, JSON of status.progress) on this annotation, and the ZImage
 * reconciler copies it into status.progress (docs/upgrade-notes.md).
 */
export const EXPORT_PROGRESS_ANNOTATION = 'zvm.dev/export-progress';

export const IMAGE_FINALIZER = 'zvm.dev/image-protection';

/** The name in the repository: spec.imageName, else metadata.name. */
export function imageNameOf(image: ZImage): string {
  return image.spec.imageName ?? image.metadata.name;
}

type Spec = Partial<ZImageSpec>;

/** `import` is a CEL reserved word: the apiserver exposes that property to rules as `__import__`. */
export const ZIMAGE_RULES: CrossFieldRule<Spec>[] = [
  {
    path: '/spec/source',
    message: 'source has exactly one of import and capture',
    cel: 'has(self.source.__import__) != has(self.source.capture)',
    holds: (s) => (s.source?.import !== undefined) !== (s.source?.capture !== undefined),
  },
  {
    path: '/spec/imageName',
    message: "imageName must not contain '..'",
    cel: "!has(self.imageName) || !self.imageName.contains('..')",
    holds: (s) => !s.imageName?.includes('..'),
  },
  {
    path: '/spec/source/import/url',
    message: "a file URL must not contain '..', '%' escapes or NUL",
    cel: "!has(self.source.__import__) || !self.source.__import__.url.startsWith('file:') || !(self.source.__import__.url.contains('..') || self.source.__import__.url.contains('%'))",
    holds: (s) => {
      const url = s.source?.import?.url;
      return !url?.startsWith('file:') || !(url.includes('..') || url.includes('%') || url.includes('\0'));
    },
  },
];

/** ZImage: the repository file is made once from its source (docs/fields.md). */
export const ZIMAGE_FIELDS: LifecycleTable = {
  host: fixed('the image file lives in one host\'s repository'),
  imageName: fixed('the repository file is named once; another name is another image'),
  source: fixed('the image is made once from its source; another source is another image'),
};
