/**
 * rc/rs → readable text (docs/smapi.md §6, our own wording), the retryable set, and
 * `raiseFor`, which turns a failed SMAPI reply into a HypervisorError.
 *
 * Retryable (transient) results: rc 900 rs 99 (system changed during the call: reissue), rc 900
 * rs 8 (no SMAPI worker free: the server is busy), rc 500 rs 4 / rs 8 (directory manager not
 * accepting updates / not available), and the client's own transport failures (negative rc,
 * numbered like zthin's: -101 refused, -103 timeout, -104 read error, -106 write error,
 * -110 not responding).
 */
import { HypervisorError } from '../../errors.js';
import type { SmapiResponse } from './types.js';

/** Transport-level failures reported in rc when no SMAPI reply arrived (smcli's numbering). */
export const TRANSPORT_RC = {
  refused: -101,
  timeout: -103,
  read: -104,
  write: -106,
  notResponding: -110,
} as const;

interface RcEntry {
  text: string;
  rs?: Record<number, string>;
}

const RC: Record<number, RcEntry> = {
  0: { text: 'request successful', rs: { 8: 'change made; CP object directory not yet rebuilt', 100: 'asynchronous operation succeeded', 104: 'asynchronous operation in progress', 108: 'asynchronous operation failed' } },
  4: { text: 'request completed with a warning', rs: { 4: 'request does not exist', 8: 'device does not exist', 28: 'no entries returned' } },
  8: { text: 'function failed', rs: { 4: 'directory entry to delete not found', 8: 'device or spool file does not exist', 12: 'image not logged on', 24: 'conflicting parameters', 3002: 'invalid parameter name', 3003: 'invalid parameter value', 3004: 'required parameter missing' } },
  24: { text: 'syntax error in a parameter (reason = parameter number × 100 + error code)' },
  28: { text: 'name list file not found' },
  36: { text: 'name list file cannot be updated' },
  100: { text: 'not authorized', rs: { 4: 'authorization deferred to the directory manager', 8: 'not authorized by the external security manager', 12: 'not authorized by the directory manager', 16: 'not authorized by the SMAPI server', 20: 'target not authorized for this function' } },
  120: { text: 'authentication failed: bad userid or password' },
  128: { text: 'authentication failed: password expired' },
  188: { text: 'external security manager failure' },
  192: { text: 'cannot authenticate the caller' },
  200: { text: 'image operation failed', rs: { 4: 'image not found', 8: 'image already active', 12: 'image not active', 16: 'image being deactivated', 24: 'name list not found', 28: 'some images not activated', 32: 'some images not deactivated', 36: 'interval too large' } },
  204: { text: 'image device error', rs: { 2: 'invalid virtual device address', 4: 'device already exists', 8: 'device does not exist', 12: 'device busy', 16: 'device not available', 20: 'device already connected', 28: 'device is not a network device', 40: 'NIC not deleted', 44: 'DASD cannot be deleted', 48: 'NIC already disconnected' } },
  208: { text: 'image disk error', rs: { 4: 'disk in use', 8: 'disk not in use', 12: 'disk not available', 36: 'disk does not exist' } },
  212: { text: 'connectivity error', rs: { 4: 'partner not found', 8: 'adapter does not exist or not authorized to connect', 12: 'LAN does not exist', 28: 'wrong device type', 32: 'adapter not connected', 36: 'virtual switch already exists', 40: 'virtual switch does not exist', 44: 'user already authorized', 48: 'VLAN does not exist', 52: 'maximum connections reached' } },
  216: { text: 'virtual CPU error', rs: { 2: 'CPU address out of range', 4: 'CPU not found', 12: 'image not active', 24: 'CPU already exists', 28: 'beyond the directory maximum', 40: 'CPU type not supported' } },
  300: { text: 'image volume operation failed' },
  396: { text: 'internal system error (reason = CP message number)' },
  400: { text: 'image definition error', rs: { 4: 'directory entry not found', 8: 'directory entry already exists', 12: 'directory entry locked', 16: 'directory entry cannot be deleted', 20: 'prototype not found', 24: 'directory entry not locked', 40: 'multiple USER statements' } },
  404: { text: 'image device definition error', rs: { 4: 'device already defined', 8: 'device not defined', 12: 'device locked', 24: 'device not locked', 28: 'size differs' } },
  408: { text: 'image disk definition error', rs: { 4: 'disk already defined', 8: 'disk not defined', 12: 'disk locked', 24: 'not enough free space in the disk pool' } },
  412: { text: 'connectivity definition error', rs: { 4: 'partner not found', 16: 'parameters do not match', 28: 'wrong device type' } },
  420: { text: 'DASD group, region or volume error', rs: { 4: 'already defined', 8: 'not defined', 12: 'region not in group', 36: 'volume offline or not DASD' } },
  436: { text: 'profile error', rs: { 4: 'included profile not found', 40: 'multiple profiles' } },
  444: { text: 'password policy violated' },
  448: { text: 'account policy violated' },
  500: { text: 'directory manager error', rs: { 0: 'request could not be completed', 4: 'not accepting updates', 8: 'not available', 20: 'password format not supported' } },
  520: { text: 'CPU definition error', rs: { 24: 'only one BASE CPU allowed', 28: 'CPU address out of range', 30: 'CPU not found', 32: 'too many CPUs' } },
  592: { text: 'asynchronous operation started' },
  596: { text: 'internal directory manager error (reason = DirMaint message number)' },
  900: { text: 'SMAPI server error', rs: { 4: 'custom exec not found', 8: 'no worker server available', 12: 'function does not exist', 20: 'request length mismatch', 28: 'bad worker output', 36: 'length out of range', 40: 'socket error', 99: 'system changed during the call; reissue it' } },
  [TRANSPORT_RC.refused]: { text: 'SMAPI server refused the connection' },
  [TRANSPORT_RC.timeout]: { text: 'SMAPI call timed out' },
  [TRANSPORT_RC.read]: { text: 'reading the SMAPI reply failed' },
  [TRANSPORT_RC.write]: { text: 'sending the SMAPI request failed' },
  [TRANSPORT_RC.notResponding]: { text: 'SMAPI is not responding' },
};

/** Meanings that depend on the function. */
const BY_FUNCTION: Record<string, string> = {
  'Image_Status_Query 0 12': 'image not active',
  'Image_Pause 8 12': 'image not logged on',
  'Image_Console_Get 8 8': 'image not logged on or not spooling its console',
  'Response_Recovery 4 4': 'no stored reply for that request id',
  'Image_Definition_Delete_DM 8 4': 'directory statement to delete not found',
};

/** A short readable text for rc/rs, e.g. "image definition error: directory entry not found". */
export function describeRcRs(rc: number, rs: number, fn?: string): string {
  const special = fn ? BY_FUNCTION[`${fn} ${rc} ${rs}`] : undefined;
  const entry = RC[rc];
  if (!entry) return special ?? `unknown return code ${rc}`;
  const detail = special ?? entry.rs?.[rs];
  return detail ? `${entry.text}: ${detail}` : entry.text;
}

/** The message of a failed call: "Image_Activate LINUX01: rc 200 rs 8 (image operation failed: image already active)". */
export function describeSmapiResult(fn: string, target: string, rc: number, rs: number): string {
  return `${fn} ${target}: rc ${rc} rs ${rs} (${describeRcRs(rc, rs, fn)})`;
}

const RETRYABLE = new Set(['900 99', '900 8', '500 4', '500 8']);

export function isRetryable(rc: number, rs: number): boolean {
  return rc < 0 || RETRYABLE.has(`${rc} ${rs}`);
}

/**
 * Throws a HypervisorError for a non-zero rc (rc 0 with any rs is left to the caller: it is
 * meaningful, not an error). Returns the response unchanged otherwise.
 */
export function raiseFor<R extends SmapiResponse>(fn: string, resp: R, target = ''): R {
  if (resp.rc === 0) return resp;
  const where = target ? `${fn} ${target}` : fn;
  throw new HypervisorError(fn, resp.rc, resp.rs, `${where}: rc ${resp.rc} rs ${resp.rs} (${describeRcRs(resp.rc, resp.rs, fn)})`,
    { retryable: isRetryable(resp.rc, resp.rs) });
}
