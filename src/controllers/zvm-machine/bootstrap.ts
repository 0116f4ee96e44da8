/**
 * The bootstrap data of a Machine as the guest reads it from its reader (docs/kubernetes-on-zvm.md):
 * Ignition as one spool file of type `ign` (Ignition's zvm platform receives the first such file from
 * reader 000c), cloud-config inside a config-2 config drive (an ISO 9660 volume holding
 * openstack/latest/user_data and meta_data.json, as terraform-provider-feilong makes it with mkisofs)
 * punched as cfgdrive.iso. Pure: the Secret in, the reader file out; the payload is never logged.
 */
import { createHash } from 'node:crypto';
import { InvalidInputError } from '../../errors.js';
import { buildIso9660 } from '../../util/iso9660.js';

/** Cluster API's bootstrap Secret keys. */
export const BOOTSTRAP_VALUE_KEY = 'value';
export const BOOTSTRAP_FORMAT_KEY = 'format';
/** A kubeadm control-plane payload is tens of kB; the reader takes what CP spool space holds, so a bound keeps a bad Secret from filling it. */
export const MAX_BOOTSTRAP_BYTES = 1024 * 1024;

export type BootstrapFormat = 'cloud-config' | 'ignition';

export interface ReaderFile {
  /** <name>.<type> in the reader */
  name: string;
  bytes: Buffer;
  /** sha256 of name and bytes: recorded on the guest once punched, so the same data is never punched twice */
  digest: string;
}

export interface BootstrapSecret {
  data?: Record<string, string>;
}

/** The format the Secret names (kubeadm writes `format`; without it, cloud-config, Cluster API's default). */
export function bootstrapFormat(secret: BootstrapSecret): BootstrapFormat {
  const raw = secret.data?.[BOOTSTRAP_FORMAT_KEY];
  const format = raw === undefined ? 'cloud-config' : Buffer.from(raw, 'base64').toString('utf8').trim();
  if (format !== 'cloud-config' && format !== 'ignition') throw new InvalidInputError(`bootstrap data format ${JSON.stringify(format.slice(0, 40))} is neither cloud-config nor ignition`);
  return format;
}

/** What is punched for this Secret; a missing or oversized value is a clear error, never a partial punch. */
export function readerFileOf(secret: BootstrapSecret, machine: { name: string; uid?: string; host: string }): ReaderFile {
  const raw = secret.data?.[BOOTSTRAP_VALUE_KEY];
  if (raw === undefined) throw new InvalidInputError(`the bootstrap Secret has no key ${BOOTSTRAP_VALUE_KEY}`);
  const value = Buffer.from(raw, 'base64');
  if (value.length === 0) throw new InvalidInputError('the bootstrap Secret\'s value is empty');
  if (value.length > MAX_BOOTSTRAP_BYTES) throw new InvalidInputError(`the bootstrap data is ${value.length} bytes, more than the ${MAX_BOOTSTRAP_BYTES} a reader file may take`);
  const file = bootstrapFormat(secret) === 'ignition'
    ? { name: 'config.ign', bytes: value }
    : { name: 'cfgdrive.iso', bytes: configDrive(value, machine) };
  return { ...file, digest: createHash('sha256').update(file.name).update('\0').update(file.bytes).digest('hex') };
}

/** config-2: cloud-init's ConfigDrive datasource reads user_data and the instance's identity from meta_data.json. */
export function configDrive(userData: Buffer, machine: { name: string; uid?: string; host: string }): Buffer {
  const meta = { uuid: machine.uid ?? machine.name, name: machine.name, hostname: machine.name, availability_zone: machine.host, launch_index: 0 };
  return buildIso9660('config-2', { openstack: { latest: { 'meta_data.json': Buffer.from(JSON.stringify(meta)), user_data: userData } } });
}
