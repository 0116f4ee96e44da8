/**
 * The management-guest capability of a host (docs/architecture.md §2, `mgmt/`): CP commands through vmcp
 * and disk-image work in the host's image repository. Optional on the Hypervisor port
 * (`hv.mgmt`): a host without a configured management guest has none.
 */
import { HypervisorError, type HvErrorFields } from '../errors.js';
import type { CallOptions } from './port.js';

/** CKD images go onto 3390 minidisks (units in cylinders), FBA images onto FB-512 ones (512-byte blocks). */
export type DiskImageType = 'CKD' | 'FBA';

/** One image in the repository; the fields of feilong's image table (docs/rest-interface.md §4.3, §5.11). */
export interface ImageRecord {
  name: string;
  /** lower-cased os version, e.g. 'rhel8.6' */
  osVersion: string;
  md5sum: string;
  /** '<n>:CYL' or '<n>:BLK', read from the image header */
  diskSizeUnits: string;
  diskType: DiskImageType;
  sizeBytes: number;
  /** 'rootonly' for imports, the capture type for captures */
  type: string;
  /** null, or text such as "{'disk_type': 'DASD'}" */
  comments: string | null;
  /** where the image file lives on the management guest */
  path: string;
  /** file atime in seconds, -1 when the file is missing */
  lastAccessTime: number;
  /** who made it (e.g. the ZImage's uid), so a rerun after a crash recognises its own image */
  owner?: string;
}

export interface ImportRequest {
  name: string;
  /** file:///abs/path (on the operator's side, inside an allowed directory, or on remoteHost), http(s)://… */
  url: string;
  /** user@host: the file:// path is on that host and is fetched through SFTP */
  remoteHost?: string;
  osVersion: string;
  md5sum?: string;
  diskType?: 'DASD' | 'SCSI';
  owner?: string;
}

export interface ExportRequest {
  name: string;
  /** file:///abs/path, on the operator's side (allowed directories) or on remoteHost */
  destUrl: string;
  remoteHost?: string;
}

export interface ExportResult {
  name: string;
  /** = destUrl, as the reference answers */
  path: string;
  osVersion: string;
  md5sum: string;
  comments: string | null;
}

export interface DeployRequest {
  userid: string;
  image: string;
  /** target minidisk, default the root vdev (0100) */
  vdev: string;
  /** config drive punched to the guest's reader; a path on remoteHost, or on the management guest */
  transportFiles?: string;
  remoteHost?: string;
  /** the image's OS version when known (ZImage status): its file is then addressed directly, not searched for */
  osVersion?: string;
}

export interface CaptureRequest {
  userid: string;
  image: string;
  vdev: string;
  captureType: 'rootonly' | 'alldisks';
  compressLevel: number;
  osVersion: string;
  owner?: string;
}

export interface VmcpResult {
  /** 0, or vmcp's exit code (1 = non-zero CP response) */
  exitCode: number;
  /** CP's response (stdout, then stderr, as feilong merges them) */
  output: string;
}

/** Bytes moved so far, and the total when the source announced it (file size, Content-Length). */
export interface TransferProgress {
  bytes: number;
  total?: number;
}

export interface MgmtCallOptions extends CallOptions {
  /**
   * Called while data moves (import, export, deploy's transport files): at most every 4 MiB and
   * once at the end with the final count. Keep it synchronous and cheap; it must not throw.
   */
  onProgress?: (p: TransferProgress) => void;
}

export interface MgmtOps {
  /** Runs a CP command on the management guest (`vmcp <command>`). */
  vmcp(command: string, opts?: CallOptions): Promise<VmcpResult>;
  /** Streams the image into the repository, verifies md5 and header; the name must be new. */
  importImage(req: ImportRequest, opts?: MgmtCallOptions): Promise<ImageRecord>;
  exportImage(req: ExportRequest, opts?: MgmtCallOptions): Promise<ExportResult>;
  listImages(opts?: CallOptions): Promise<ImageRecord[]>;
  describeImage(name: string, opts?: CallOptions): Promise<ImageRecord | undefined>;
  /** Removes the image and its folder; an unknown image is success. */
  deleteImage(name: string, opts?: CallOptions): Promise<void>;
  /** Writes the image onto the guest's disk and punches the transport files; does not power on. */
  deployImage(req: DeployRequest, opts?: MgmtCallOptions): Promise<void>;
  /** Punches the script that grows the root partition and file system to the guest's reader (grow_root_volume). */
  growRootVolume?(userid: string, osVersion: string, opts?: MgmtCallOptions): Promise<void>;
  /**
   * Punches a file to the guest's reader as <name>.<type> (Cluster API bootstrap data: Ignition reads the
   * first file of type `ign` from reader 000c at first boot); the staged copy is removed afterwards.
   */
  punchFile?(userid: string, file: { name: string; bytes: Buffer | string }, opts?: MgmtCallOptions): Promise<void>;
  /** Captures one disk of a logged-off guest into a new image. */
  captureImage(req: CaptureRequest, opts?: MgmtCallOptions): Promise<ImageRecord>;
  /**
   * Receives the guest's console spool files from the management guest's reader (put there by
   * Image_Console_Get) and answers the guest's accumulated console log, newest text last.
   */
  consoleOutput?(userid: string, opts?: CallOptions): Promise<string>;
  /** Removes what the management guest keeps for a guest (its console log), as feilong does on delete. */
  forgetGuest?(userid: string, opts?: CallOptions): Promise<void>;
  /** Connects if needed so that the host key is checked (HostKeyRejectedError); answers its SHA256 fingerprint. */
  verifyHost?(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** feilong's module ids for these errors: image 40, guest 10 (docs/rest-interface.md §2.1). */
export type ImageErrorModule = 'image' | 'guest';

/**
 * An image or deploy/capture failure with feilong's result code (overallRC 300, rc 300, rs per
 * message, modID 40 or 10), so status.lastError and the REST envelope carry the reference's code.
 */
export class ImageError extends HypervisorError {
  readonly module: ImageErrorModule;
  constructor(fn: string, rs: number, message: string, options?: { module?: ImageErrorModule; cause?: unknown }) {
    super(fn, 300, rs, message, { cause: options?.cause });
    this.module = options?.module ?? 'image';
  }
  override toFields(): HvErrorFields {
    return { overallRC: 300, rc: 300, rs: this.rs, modID: this.module === 'image' ? 40 : 10, errmsg: this.message };
  }
}

/** feilong's image result codes used here (docs/rest-interface.md §2.1 "image"). */
export const ImageRs = {
  md5Failed: 3,
  md5Mismatch: 4,
  noUnits: 6,
  badDiskType: 7,
  httpFailed: 9,
  remoteCopyFailed: 10,
  localCopyFailed: 12,
  alreadyExists: 13,
  other: 14,
  notFound: 20,
  exportRemoteFailed: 21,
  exportLocalFailed: 22,
} as const;

/** feilong's guest result codes for deploy/capture. */
export const GuestImageRs = { unpackFailed: 3, transportFailed: 4, captureFailed: 5 } as const;
