/**
 * Every captured vector of every supported function, in both directions:
 * encode(kwargs) is the captured request byte for byte, decode(request) gives the kwargs back,
 * decode(response) gives pysmapi's parsed values, and encode(those values) is the captured
 * response byte for byte.
 *
 * Two documented differences from pysmapi's `parsed`:
 * - pysmapi pre-sets every result attribute (and every unused input keyword) to an empty default
 *   ("" / 0 / [] / null); such values did not come from the bytes, so a key our decoder does not
 *   produce must hold one of those defaults (e.g. Image_Activate's header-only reply).
 * - an empty keyword value (routing_value "" in Vswitch_Create_Extended/1) is not sent, and an
 *   empty optional string decodes as absent, so decoded params are compared without "" values.
 * - pysmapi splits NUL-terminated string lists with split("\0"), leaving a trailing "" that is not
 *   an item on the wire; we compare without it.
 */
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../../../src/hypervisor/smapi/codec.js';
import { SUPPORTED_FUNCTIONS } from '../../../../src/hypervisor/smapi/layouts.js';
import { loadVectors, VECTORS_DIR } from './load-vectors.js';
import type { Vector } from './load-vectors.js';

const META = new Set(['function_name', 'request_id', 'return_code', 'reason_code', 'target']);
const SPLIT_LISTS = new Set(['error_data', 'asynch_data', 'system_information_data', 'system_performance_information_data']);

function isPysmapiDefault(v: unknown): boolean {
  return v === '' || v === 0 || v === null || (Array.isArray(v) && v.length === 0);
}

function expectedOutput(v: Vector): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v.parsed)) {
    if (META.has(k) || k in v.kwargs) continue;
    out[k] = SPLIT_LISTS.has(k) && Array.isArray(val) && val.at(-1) === '' ? val.slice(0, -1) : val;
  }
  return out;
}

function paramsOf(v: Vector): Record<string, unknown> {
  const { target: _target, ...params } = v.kwargs;
  void _target;
  return params;
}

function credentials(v: Vector): { userid: string; password: string } {
  const h = decodeRequest(v.request);
  return h.auth;
}

const cases = SUPPORTED_FUNCTIONS.flatMap((fn) => loadVectors(fn).map((v) => [`${fn}/${v.case}`, v] as const));

describe(`SMAPI codec against the captured vectors in ${VECTORS_DIR}`, () => {
  it('finds vectors for the supported functions', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  describe.each(cases)('%s', (_name, v) => {
    it('encodes the kwargs to the captured request bytes', () => {
      const bytes = encodeRequest({ fn: v.api, target: String(v.kwargs.target), params: paramsOf(v) }, credentials(v));
      expect(bytes.toString('hex')).toBe(v.request.toString('hex'));
    });

    it('decodes the captured request back to the kwargs', () => {
      const { req } = decodeRequest(v.request);
      expect(req.fn).toBe(v.api);
      expect(req.target).toBe(v.kwargs.target);
      const sent = Object.fromEntries(Object.entries(paramsOf(v)).filter(([, x]) => x !== ''));
      expect(req.params).toEqual(sent);
    });

    it('decodes the captured response to the parsed values', () => {
      const { requestId, resp } = decodeResponse(v.api, v.response);
      expect(requestId).toBe(v.requestId);
      expect([resp.rc, resp.rs]).toEqual([v.returnCode, v.reasonCode]);
      const expected = expectedOutput(v);
      for (const [k, val] of Object.entries(resp.output)) expect({ [k]: val }).toEqual({ [k]: expected[k] });
      for (const [k, val] of Object.entries(expected)) {
        if (!(k in resp.output)) expect({ [k]: isPysmapiDefault(val) }).toEqual({ [k]: true });
      }
    });

    it('encodes the parsed values to the captured response bytes', () => {
      const expected = expectedOutput(v);
      const { resp } = decodeResponse(v.api, v.response);
      const fromWire = Object.fromEntries(Object.keys(resp.output).map((k) => [k, expected[k]]));
      const bytes = encodeResponse(v.api, v.requestId, { rc: v.returnCode ?? 0, rs: v.reasonCode ?? 0, output: fromWire });
      expect(bytes.toString('hex')).toBe(v.response.toString('hex'));
    });
  });
});
