/** The management-guest adapter (docs/architecture.md §2 `mgmt/`): the `mgmt` capability over SSH. */
export { createMgmtOps, MGMT_DEFAULTS, type MgmtConfig } from './mgmt-ops.js';
export { CONSOLE_LOG_DIR, CONSOLE_LOG_MAX } from './console.js';
export type { RemoteHostAuth } from './context.js';
export type { SshEndpoint } from './ssh-connection.js';
export {
  buildImageHeader, CKD_CYLINDER_BYTES, diskSizeUnits, HEADER_SIZE, IMAGE_TAGS, isRawImageOs, parseImageHeader, rawDiskSizeUnits, unitsNumber,
  type ImageHeader, type ImageTag, type ParsedImageHeader,
} from './image-header.js';
export {
  checkImageName, checkOsVersion, checkRemoteHost, filePathOfUrl,
} from './paths.js';
export { createHostVerifier, HostKeyRejectedError, knownHostsFingerprints, normalizeFingerprint, sha256Fingerprint, type HostKeyPolicy, type HostKeyRefusal } from './host-key.js';
export { copyStream, SizeLimitError, type CopyResult, type Source } from './transfer.js';
export { checkInsideDirs, openConfinedForRead, openConfinedForWrite, OutsideAllowedDirsError, type OpenedFile } from './local-files.js';
export { HTTP_DEFAULTS, type HttpSourcePolicy } from './transfer.js';
export { queryPchids } from './pchids.js';
export { registerTransferMetrics } from './metrics.js';
