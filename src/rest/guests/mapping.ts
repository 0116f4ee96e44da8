import type { CreatedDisk, GuestClassValues, GuestDisk, ZGuestSpec } from '../../api/index.js';
import { InvalidSpecError } from '../../errors.js';
import type { RestConfig } from '../config.js';
import { FeilongError, feilongErrors } from '../feilong-error.js';
import { pyRepr, valueAt } from '../validation.js';
import { normalizeShare } from '../../hypervisor/index.js';
import { resolveGuestDefaults, resolveGuestSpec, type HostDefaults } from '../../controllers/index.js';

/** A disk_list entry of POST /guests and POST /guests/{userid}/disks (docs/rest-interface.md §1.5). */
export interface DiskInput {
  size: string;
  format?: string;
  is_boot_disk?: boolean | string;
  vdev?: string;
  disk_pool?: string;
}

/** The `guest` object of POST /guests. */
export interface GuestCreateInput {
  userid: string;
  vcpus?: number;
  memory?: number;
  /** extension: a ZGuestClass name */
  class?: string;
  user_profile?: string | null;
  disk_list?: DiskInput[];
  max_cpu?: number;
  max_mem?: string;
  ipl_from?: string;
  ipl_param?: string;
  ipl_loadparam?: string;
  dedicate_vdevs?: string[];
  loaddev?: { portname?: string; lun?: string; alterdev?: string };
  account?: string;
  comments?: string[];
  comment_list?: string[];
  cschedule?: string;
  cshare?: string;
  rdomain?: string;
  pcif?: string;
}

const TRUE_WORDS = new Set(['1', 't', 'true', 'on', 'y', 'yes']);

/** feilong's boolean: JSON true/false or one of its words (§1.3 conventions). */
export function toBool(v: boolean | string | undefined): boolean {
  if (typeof v === 'boolean') return v;
  return v !== undefined && TRUE_WORDS.has(v.toLowerCase());
}

/** The ZGuest name of a REST-created guest. */
export function guestName(userid: string): string {
  return userid.toLowerCase();
}

/** feilong's rule: MB multiple of 1024 → '<n>G', else '<n>M' (§3.1); the spec allows 4 digits. */
export function computeMemory(mb: number): string {
  const value = mb % 1024 === 0 ? `${mb / 1024}G` : `${mb}M`;
  if (!/^[1-9][0-9]{0,3}[MG]$/.test(value)) {
    throw feilongErrors.invalidArg(`memory ${mb} MB can not be written as 1-4 digits with unit M or G`);
  }
  return value;
}

function hexVdev(n: number): string {
  return n.toString(16).toUpperCase().padStart(4, '0');
}

/** Next vdev after the highest used one, or the root vdev when none is used (§3.8). */
export function nextVdev(used: string[], rootVdev: string): number {
  const nums = used.map((v) => parseInt(v, 16)).filter((n) => !Number.isNaN(n));
  return nums.length === 0 ? parseInt(rootVdev, 16) : Math.max(...nums) + 1;
}

function normalizePool(pool: string | undefined): string | undefined {
  if (!pool) return undefined;
  const i = pool.indexOf(':');
  return i === -1 ? pool : `${pool.slice(0, i).toUpperCase()}:${pool.slice(i + 1)}`;
}

/**
 * disk_list → spec.disks with explicit vdevs (own vdev, else consecutive from `firstVdev`) so the
 * answer can name them. On create the first boot disk gets format none (it receives the image).
 */
export function computeDisks(list: DiskInput[], config: RestConfig, firstVdev: number, create: boolean): GuestDisk[] {
  let bootSeen = false;
  return list.map((d, i) => {
    const boot = create && !bootSeen && toBool(d.is_boot_disk);
    if (boot) bootSeen = true;
    const vdev = (d.vdev ?? hexVdev(firstVdev + i)).toUpperCase().padStart(4, '0');
    if (parseInt(vdev, 16) > 0xffff) throw feilongErrors.invalidArg(`vdev ${vdev} exceeds the device number range`);
    const pool = normalizePool(d.disk_pool ?? config.diskPool);
    const format = boot ? 'none' : d.format?.toLowerCase();
    const disk: GuestDisk = { size: d.size, vdev };
    if (format) disk.format = format as GuestDisk['format'];
    if (pool) disk.pool = pool;
    if (boot) disk.boot = true;
    return disk;
  });
}

function nonEmpty(s: string | undefined | null): string | undefined {
  return s === undefined || s === null || s === '' ? undefined : s;
}

/**
 * POST /guests body → ZGuest spec (conventions shared with the controller; README of src/rest). The spec
 * carries what the request gave; max CPUs, max memory and profile it leaves out come to the guest from its
 * class, then its ZHost's spec.defaults (`host`), then the built-in defaults, as the controller resolves
 * them (controllers resolveGuestDefaults). With a class (its current values in `cls`) the spec names it.
 */
export function computeGuestSpec(g: GuestCreateInput, config: RestConfig, cls?: GuestClassValues, host?: HostDefaults): ZGuestSpec {
  const from: GuestClassValues = cls ?? {};
  const maxCpus = resolveGuestDefaults({ spec: { maxCpus: g.max_cpu }, classValues: from, host }).maxCpus;
  const vcpus = g.vcpus ?? from.vcpus;
  if (vcpus !== undefined && vcpus > maxCpus) throw feilongErrors.invalidArg(`vcpus ${vcpus} exceeds max_cpu ${maxCpus}`);
  const disks = g.disk_list || !cls ? computeDisks(g.disk_list ?? [], config, parseInt(config.userRootVdev, 16), true) : undefined;
  const fields: Partial<ZGuestSpec> = {
    class: cls ? g.class : undefined,
    vcpus: g.vcpus,
    memory: g.memory === undefined ? undefined : computeMemory(g.memory),
    maxCpus: g.max_cpu,
    maxMemory: g.max_mem?.toUpperCase(),
    profile: nonEmpty(g.user_profile)?.toUpperCase(),
    disks,
  };
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  // feilong creates guests logged off; start is a separate action
  const spec: ZGuestSpec = { userid: g.userid.toUpperCase(), host: config.defaultHost, ...given, powerState: 'Stopped' };
  // a class that lacks what the request lacks is refused before anything is written
  const resolved = resolveGuestSpec(spec, cls);
  if ('problem' in resolved) throw feilongErrors.invalidArg(resolved.problem.message);
  const account = nonEmpty(g.account);
  if (account) spec.account = account;
  const comments = g.comment_list ?? g.comments;
  if (comments && comments.length > 0) spec.comments = comments;
  const iplDevice = nonEmpty(g.ipl_from) ?? (disks?.[0]?.boot ? disks[0].vdev : undefined);
  if (iplDevice) {
    spec.ipl = { device: iplDevice };
    if (nonEmpty(g.ipl_param)) spec.ipl.param = g.ipl_param;
    if (nonEmpty(g.ipl_loadparam)) spec.ipl.loadparm = g.ipl_loadparam;
  }
  if (g.loaddev && Object.keys(g.loaddev).length > 0) spec.loaddev = { ...g.loaddev };
  if (g.dedicate_vdevs && g.dedicate_vdevs.length > 0) spec.dedicate = g.dedicate_vdevs.map((v) => v.toUpperCase());
  // the directory statements of cschedule, cshare, rdomain and pcif (docs/rest-interface.md §3.1, steps 7–10)
  if (nonEmpty(g.cschedule)) spec.cpuPool = g.cschedule!.toUpperCase();
  if (nonEmpty(g.cshare)) spec.share = normalizeShare(g.cshare!);
  if (nonEmpty(g.rdomain)) spec.relocationDomain = g.rdomain!.toUpperCase();
  if (nonEmpty(g.pcif)) spec.pciFunctions = [g.pcif!.toUpperCase()];
  return spec;
}

/** status.disks → the created-disk list of the newest feilong output (§1.3 #6), in request order. */
export interface CreatedDiskOutput {
  size: string;
  is_boot_disk?: boolean;
  disk_pool: string;
  vdev: string;
  format?: string;
}

export function computeCreatedDisks(requested: GuestDisk[], created: CreatedDisk[] | undefined): CreatedDiskOutput[] {
  return requested.map((r) => {
    const c = created?.find((d) => d.vdev.toUpperCase() === r.vdev?.toUpperCase());
    const out: CreatedDiskOutput = { size: c?.size ?? r.size, disk_pool: '', vdev: '' };
    if (c?.isBootDisk ?? r.boot) out.is_boot_disk = true;
    out.disk_pool = c?.diskPool ?? r.pool ?? '';
    out.vdev = c?.vdev ?? r.vdev ?? '';
    const format = c?.format ?? r.format;
    if (format) out.format = format;
    return out;
  });
}

/**
 * The inverse of computeGuestSpec and computeDisks: the request field that filled each ZGuest path, so a
 * refused write names what the client sent (`disk_list[0].size`), never our resource's schema path.
 * Keys are paths under /spec; the longest key that prefixes a path wins, what remains is appended.
 */
const REQUEST_FIELDS: Record<string, string> = {
  userid: 'userid', vcpus: 'vcpus', memory: 'memory', maxCpus: 'max_cpu', maxMemory: 'max_mem', profile: 'user_profile',
  class: 'class', account: 'account', comments: 'comment_list', 'ipl/device': 'ipl_from', 'ipl/param': 'ipl_param',
  'ipl/loadparm': 'ipl_loadparam', loaddev: 'loaddev', dedicate: 'dedicate_vdevs', cpuPool: 'cschedule', share: 'cshare',
  relocationDomain: 'rdomain', 'pciFunctions/0': 'pcif',
};
const DISK_FIELDS: Record<string, string> = { size: 'size', format: 'format', vdev: 'vdev', pool: 'disk_pool', boot: 'is_boot_disk' };

/** Where the request's disks sit in spec.disks: the list's name and the index of its first entry. */
export interface DiskListPlace {
  list: string;
  first: number;
}
const CREATE_DISKS: DiskListPlace = { list: 'disk_list', first: 0 };

const appendSegments = (field: string, rest: string[]): string =>
  rest.reduce((f, s) => (/^\d+$/.test(s) ? `${f}[${s}]` : `${f}.${s}`), field);

function diskField(rest: string[], place: DiskListPlace): string | undefined {
  if (rest.length === 0) return place.list;
  const i = Number(rest[0]) - place.first;
  if (!Number.isInteger(i) || i < 0) return undefined;
  const key = rest[1];
  return key === undefined ? `${place.list}[${i}]` : DISK_FIELDS[key] && `${place.list}[${i}].${DISK_FIELDS[key]}`;
}

/** A ZGuest path (JSON pointer) → the request field it came from; undefined when no request field fills it. */
export function computeRequestField(pointer: string, disks: DiskListPlace = CREATE_DISKS): string | undefined {
  const segments = pointer.split('/').slice(1);
  if (segments.join('/') === 'metadata/name') return 'userid';
  if (segments[0] !== 'spec') return undefined;
  const path = segments.slice(1);
  if (path[0] === 'disks') return diskField(path.slice(1), disks);
  for (let n = path.length; n > 0; n--) {
    const field = REQUEST_FIELDS[path.slice(0, n).join('/')];
    if (field) return appendSegments(field, path.slice(n));
  }
  return undefined;
}

/** A Kubernetes cause names the path in its text too ("spec.disks[0].size in body should match …"). */
const KUBE_FIELD_TEXT = /\b(?:spec|metadata)(?:\.\w+|\[\d+\])+ in body /g;

/** What a refusal is read against: where the request's disks sit, and the directory profile the guest names. */
export interface RefusalContext {
  disks?: DiskListPlace;
  profile?: string;
}

/** The host refused the definition's INCLUDE: SMAPI 436/4, recorded by the controller in status.lastError. */
const isProfileNotFound = (err: unknown): boolean => err instanceof FeilongError && err.fields.rc === 436 && err.fields.rs === 4;

/**
 * A refused guest write in the request's terms: the store's refusal (InvalidSpecError, schema paths) as
 * feilong's invalid-argument envelope naming the request's fields and values; a profile the host does not
 * have as the reference's 404 naming it. Any other error is returned unchanged.
 */
export function inRequestTerms(err: unknown, obj: { spec: unknown }, context: RefusalContext = {}): unknown {
  if (context.profile && isProfileNotFound(err)) return feilongErrors.profileNotFound(context.profile);
  if (!(err instanceof InvalidSpecError) || err.issues.length === 0) return err;
  const described = err.issues.map((issue) => {
    const message = issue.message.replace(KUBE_FIELD_TEXT, '');
    const field = computeRequestField(issue.path, context.disks);
    if (!field) return message;
    const value = valueAt(obj, issue.path);
    return value === undefined ? `${field}: ${message}` : `${field}: ${pyRepr(value)} ${message}`;
  });
  return feilongErrors.invalidArg(described.join('; '));
}
