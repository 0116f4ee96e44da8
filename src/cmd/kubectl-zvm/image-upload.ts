/**
 * image-upload: streams a local file to the server's image directory (the admin API's PUT /files in
 * standalone, the REST sidecar's /files in a cluster, as virtctl uses CDI's upload proxy), checks the
 * md5 the server computed against ours, then creates a ZImage importing it and waits for Ready with
 * the md5 verified by the controller.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { API_VERSION } from '../../api/index.js';
import { InvalidInputError, ZvmError } from '../../errors.js';
import { createAdminApi, type AdminApi } from './admin-api.js';
import { pluginOwned, type Backend } from './connect.js';
import { createImage } from './images.js';
import { createProgressReporter } from './progress.js';
import { connectedTo, type VerbOptions } from './run.js';

export interface ImageUploadOptions extends VerbOptions {
  file: string;
  osVersion: string;
  diskType?: 'DASD' | 'SCSI';
  host?: string;
  /** the REST sidecar's base URL (cluster mode) */
  uploadUrl?: string;
}

interface Uploaded {
  output: { filesize_in_bytes: number; dest_url: string; md5sum: string };
}

function uploaderFor(b: Backend, opts: ImageUploadOptions): AdminApi {
  if (opts.uploadUrl) return createAdminApi({ server: opts.uploadUrl, token: opts.token });
  if (b.admin) return b.admin;
  throw new InvalidInputError('against a cluster, image-upload needs --upload-url: the REST sidecar that stores the file where the controller imports it from');
}

/** Streams the file, counting and hashing what leaves, with progress on stderr. */
async function upload(api: AdminApi, path: string, size: number): Promise<{ md5: string; server: Uploaded['output'] }> {
  const hash = createHash('md5');
  const progress = createProgressReporter(size);
  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      sent += chunk.length;
      progress.update(sent);
      done(null, chunk);
    },
  });
  const body = createReadStream(path).on('error', (err) => counter.destroy(err)).pipe(counter);
  const res = await api.upload<Uploaded>('/files', body, size);
  progress.done(sent);
  return { md5: hash.digest('hex'), server: res.output };
}

export async function runImageUpload(name: string, opts: ImageUploadOptions): Promise<void> {
  const size = (await stat(opts.file).catch((err: unknown) => {
    throw new InvalidInputError(`cannot read --file ${opts.file}: ${(err as Error).message}`);
  })).size;
  await connectedTo(opts, async (b, out) => {
    if (await b.store.get('ZImage', { name })) throw new ZvmError('ALREADY_EXISTS', `zimage "${name}" already exists`);
    const { md5, server } = await upload(uploaderFor(b, opts), opts.file, size);
    if (server.md5sum !== md5 || server.filesize_in_bytes !== size) {
      throw new ZvmError('INTERNAL', `the server stored ${server.filesize_in_bytes} bytes with md5 ${server.md5sum}; sent ${size} bytes with md5 ${md5}`);
    }
    out(`uploaded ${opts.file} (${size} bytes, md5 ${md5}) to ${server.dest_url}`);
    const ready = await createImage(b, {
      apiVersion: API_VERSION, kind: 'ZImage',
      metadata: pluginOwned({ name }),
      spec: {
        ...(opts.host ? { host: opts.host } : {}),
        source: { import: { url: server.dest_url, osVersion: opts.osVersion, md5sum: md5, ...(opts.diskType ? { diskType: opts.diskType } : {}) } },
      },
    }, opts, out);
    if (!opts.wait) return;
    if (ready.status?.md5sum !== md5) throw new ZvmError('INTERNAL', `zimage "${name}" is Ready with md5 ${ready.status?.md5sum ?? 'unknown'}, not ${md5}`);
    out(`zimage.zvm.dev/${name} Ready (md5 ${md5})`);
  });
}
