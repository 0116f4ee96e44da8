import type { ZVswitchSpec } from '../../api/index.js';
import { FeilongError, ModID } from '../feilong-error.js';

/** The body of POST /vswitches after schema validation (docs/rest-interface.md §1.5 `vswitch.create`). */
export interface VswitchCreateInput {
  name: string;
  rdev?: string | null;
  controller?: string;
  persist?: boolean | string;
  connection?: string;
  queue_mem?: number;
  router?: string;
  network_type?: string;
  vid?: string | number;
  port_type?: string;
  gvrp?: string;
  native_vid?: number | null;
}

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes']);
const asBool = (v: boolean | string) => (typeof v === 'boolean' ? v : TRUE_WORDS.has(v.toLowerCase()));

/** Accepted spellings (CONnect, DISCONnect, ETHernet, NONrouter, PRIrouter…) → the canonical keyword. */
function canonical<T extends string>(value: string, keywords: readonly T[]): T {
  const upper = value.toUpperCase();
  return keywords.find((k) => k === upper) ?? keywords.find((k) => k.startsWith(upper))!;
}

/** feilong's own 400 for a request the schema lets through (sdkwsgi RESTAPI rs 1). */
export function invalidRequest(detail: string): FeilongError {
  return new FeilongError('INVALID_INPUT', { overallRC: 400, modID: ModID.sdkwsgi, rc: 400, rs: 1, errmsg: `Invalid request: ${detail}` });
}

export function vswitchNotFound(name: string): FeilongError {
  return new FeilongError('NOT_FOUND', { overallRC: 404, modID: ModID.network, rc: 404, rs: 1, errmsg: `Vswitch ${name.toUpperCase()} does not exist.` });
}

/** What the host says for an existing switch (SMAPI 212/36 through the SMT layer → 409). */
export function vswitchExists(name: string): FeilongError {
  return new FeilongError('ALREADY_EXISTS', { overallRC: 8, modID: ModID.smt, rc: 212, rs: 36, errmsg: `Vswitch ${name.toUpperCase()} already exists.` });
}

/** A resource name for a switch name: lower case, characters Kubernetes refuses spelled as -<hex>. */
export function vswitchResourceName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, (c) => `-${c.charCodeAt(0).toString(16)}`);
}

/**
 * The ZVswitch spec for a create request. The handler's defaults stay implicit (the adapter applies
 * the same ones), except native_vid, which feilong sends as 1 for a VLAN-aware switch when absent.
 * PRIROUTER with an ETHERNET switch is refused (the interface forbids it; feilong silently drops it);
 * NONROUTER with ETHERNET is accepted, as the reference does.
 */
export function computeVswitchSpec(input: VswitchCreateInput, host: string): ZVswitchSpec {
  const networkType = input.network_type ? canonical(input.network_type, ['IP', 'ETHERNET'] as const) : 'ETHERNET';
  const router = input.router ? canonical(input.router, ['NONROUTER', 'PRIROUTER'] as const) : undefined;
  // NONROUTER is what an ETHERNET switch is anyway (the reference's own templates send it); PRIROUTER needs IP
  if (router === 'PRIROUTER' && networkType === 'ETHERNET') throw invalidRequest('router PRIROUTER is not allowed when network_type is ETHERNET');
  const vid = input.vid === undefined ? 'UNAWARE' : String(input.vid).toUpperCase();
  const spec: ZVswitchSpec = { switchName: input.name.toUpperCase(), host, networkType };
  if (input.rdev) spec.rdev = input.rdev.trim().split(/\s+/).join(' ').toUpperCase();
  if (input.controller) spec.controller = input.controller.toUpperCase();
  if (input.connection) spec.connection = canonical(input.connection, ['CONNECT', 'DISCONNECT', 'NOUPLINK'] as const);
  if (router) spec.router = router;
  spec.vid = vid;
  if (input.port_type) spec.portType = canonical(input.port_type, ['ACCESS', 'TRUNK'] as const);
  if (input.gvrp) spec.gvrp = canonical(input.gvrp, ['GVRP', 'NOGVRP'] as const);
  if (input.queue_mem !== undefined) spec.queueMem = input.queue_mem;
  if (vid !== 'UNAWARE' && input.native_vid !== null) spec.nativeVid = input.native_vid ?? 1;
  if (input.persist !== undefined) spec.persist = asBool(input.persist);
  return spec;
}
