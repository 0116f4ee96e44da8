import { InvalidInputError, ZvmError, type ErrorCode, type HvErrorFields } from '../errors.js';

/** Module ids of the reference (docs/rest-interface.md §2.1). */
export const ModID = { smt: 1, guest: 10, network: 20, volume: 30, image: 40, monitor: 50, sdkwsgi: 120, zvmsdk: 400 } as const;

/**
 * A failure whose feilong envelope is known exactly (a controller's status.lastError, or one of
 * the reference's result codes); the error handler sends these fields and derives the status.
 */
export class FeilongError extends ZvmError {
  readonly fields: HvErrorFields;
  constructor(code: ErrorCode, fields: HvErrorFields, options?: { cause?: unknown }) {
    super(code, fields.errmsg, options);
    this.fields = fields;
  }
}

/** A request that fails its schema: answered with the Fault body and status 400 (§2.3 A). */
export class RequestValidationError extends InvalidInputError {}

/** A body that is not JSON, a missing/unknown action: Fault body with rs 400 (§2.3 B). */
export class BadRequestError extends InvalidInputError {}

function codeOf(overallRC: number): ErrorCode {
  if (overallRC === 404) return 'NOT_FOUND';
  if (overallRC === 409) return 'CONFLICT';
  if (overallRC === 100 || overallRC === 400) return 'INVALID_INPUT';
  if (overallRC === 501) return 'NOT_SUPPORTED';
  return 'HYPERVISOR';
}

/** Wraps fields recorded by the controller (status.lastError) for the error handler. */
export function fromHvError(fields: HvErrorFields): FeilongError {
  return new FeilongError(codeOf(fields.overallRC), { ...fields });
}

/** The reference's rc for "SMAPI did not answer" (feilong smtclient: -110, -102, -103 are "SMAPI down"). */
export const SMAPI_DOWN_RC = -110;
const SMAPI_DOWN_RCS = new Set([-110, -102, -103]);

/** An envelope that says the host's SMAPI is down (HTTP 503, envelope.ts). */
export function isSmapiDown(f: HvErrorFields): boolean {
  return f.overallRC === 500 && f.modID === ModID.smt && SMAPI_DOWN_RCS.has(f.rc);
}

export const feilongErrors = {
  guestNotFound: (userid: string) =>
    new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.guest, rc: 404, rs: 1, errmsg: `Guest '${userid}' does not exist.` }),
  guestNotInDirectory: (userid: string) =>
    new FeilongError('NOT_FOUND', {
      overallRC: 404, modID: ModID.guest, rc: 404, rs: 3,
      errmsg: `Guest '${userid}' does not exist in directory although it is in DB. The guest could have been deleted out of z/VM Cloud Connector.`,
    }),
  /** Our extension's (POST /guests `class`): a missing class is a missing object, like a missing guest or image. */
  classNotFound: (name: string) =>
    new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.guest, rc: 404, rs: 1, errmsg: `Guest class '${name}' does not exist.` }),
  /** Image_Create_DM's 436/4 as the reference words it (docs/rest-interface.md §3.1), and what to do about it. */
  profileNotFound: (profile: string) =>
    new FeilongError('NOT_FOUND', {
      overallRC: 404, modID: ModID.guest, rc: 404, rs: 1,
      errmsg: `Profile '${profile}' does not exist. Create the directory profile on z/VM, or name an existing one in user_profile (or in the class's profile).`,
    }),
  guestAlreadyExists: (userid: string) =>
    new FeilongError('ALREADY_EXISTS', { overallRC: 409, modID: ModID.guest, rc: 409, rs: 1, errmsg: `Guest '${userid}' already exists.` }),
  /** guest rs5: the reference reuses the capture text for "powered off" (§2.1, §3.3). */
  guestPoweredOff: (userid: string, verb: string) =>
    new FeilongError('CONFLICT', {
      overallRC: 300, modID: ModID.guest, rc: 300, rs: 5,
      errmsg: `Failed to capture userid ${userid} to generate image, error: guest ${userid} is powered off, start it before ${verb}.`,
    }),
  guestNotActive: (userid: string) =>
    new FeilongError('CONFLICT', { overallRC: 409, modID: ModID.guest, rc: 409, rs: 1, errmsg: `Guest '${userid}' is not in active status.` }),
  conflict: (rs: number, errmsg: string, modID: number = ModID.guest) =>
    new FeilongError('CONFLICT', { overallRC: 409, modID, rc: 409, rs, errmsg }),
  invalidArg: (msg: string) =>
    new FeilongError('INVALID_INPUT', { overallRC: 100, modID: ModID.zvmsdk, rc: 100, rs: 3, errmsg: `Invalid API arg format, error: ${msg}` }),
  notImplemented: (func: string, modID: number = ModID.guest) =>
    new FeilongError('NOT_SUPPORTED', {
      overallRC: 501, modID, rc: 501, rs: 1,
      errmsg: `The requested function: ${func} has not been implemented in current release`,
    }),
  /**
   * The reference's answer when SMAPI does not answer (smtclient: an SMT internal error, rc -110,
   * "temporary z/VM SMAPI down"): overallRC 500, modID 1, rc -110. Ours comes before any write and
   * with HTTP 503 (envelope.ts), so a client knows nothing was done and may try again later.
   */
  smapiDown: (what: string) =>
    new FeilongError('UNAVAILABLE', { overallRC: 500, modID: ModID.smt, rc: SMAPI_DOWN_RC, rs: 0, errmsg: `${what}; this is likely a temporary z/VM SMAPI down issue.` }),
  /** Our own (202): written before the host's outage was declared; it is carried out when the host answers again. */
  acceptedWhileUnreachable: (what: string, host: string, see: string) =>
    new FeilongError('TIMEOUT', {
      overallRC: 202, modID: ModID.sdkwsgi, rc: 202, rs: 3,
      errmsg: `Accepted: ${what}. The SMAPI of host ${host} stopped answering while it ran; it is carried out when the host answers again, and ${see} shows how it ends.`,
    }),
  /**
   * Our own: the operation outlived the operation timeout. Not a failure: it goes on, and `see` says
   * where to watch it; HTTP 202, with an overallRC that no client takes for success (src/rest/README.md).
   */
  stillRunning: (what: string, seconds: number, see: string) =>
    new FeilongError('TIMEOUT', {
      overallRC: 202, modID: ModID.sdkwsgi, rc: 202, rs: 1,
      errmsg: `Still running after ${seconds} s: ${what}. The request was accepted and goes on in the background; ${see} shows how it ends.`,
    }),
  /**
   * Our own: under ZHost changePolicy Approve the controller holds the change for approval (HTTP 202, as
   * stillRunning): the resource is written, the host is not changed until someone approves the plan.
   */
  awaitingApproval: (what: string, hash: string, see: string) =>
    new FeilongError('TIMEOUT', {
      overallRC: 202, modID: ModID.sdkwsgi, rc: 202, rs: 4,
      errmsg: `Accepted, waiting for approval: ${what}. The host policy is Approve: plan ${hash} is held in ${see} (status.pendingPlan) until annotation zvm.dev/approved-plan=${hash} approves it.`,
    }),
  /** Our own: a read of something an operation is still making (HTTP 202, as stillRunning). */
  inProgress: (what: string, see: string) =>
    new FeilongError('TIMEOUT', { overallRC: 202, modID: ModID.sdkwsgi, rc: 202, rs: 2, errmsg: `In progress: ${what}; ${see}.` }),
};
