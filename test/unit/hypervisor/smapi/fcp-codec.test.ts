/**
 * System_WWPN_Query has no captured vector: these tests pin its layout as pysmapi and
 * docs/smapi.md describe it (request: plain kvlist `owner=YES`; reply: one NUL-terminated
 * line per FCP, six blank-separated fields). The dedicate functions are covered by vectors.test.ts.
 */
import { decodeOutput, decodeParams, encodeOutput, encodeParams, decodeResponse, encodeResponse } from '../../../../src/hypervisor/smapi/codec.js';

describe('System_WWPN_Query codec', () => {
  it('sends the owner keyword as one NUL-terminated item with no length prefix', () => {
    const bytes = encodeParams('System_WWPN_Query', { owner: 'YES' });
    expect(bytes.toString('latin1')).toBe('owner=YES\0');
    expect(decodeParams('System_WWPN_Query', bytes)).toEqual({ owner: 'YES' });
  });

  it('decodes one line per FCP into its six fields', () => {
    const raw = Buffer.from('1A00 C05076DE33001A00 27 C05076DE33000027 2 NONE\x001B00 C05076DE33001B00 28 C05076DE33000028 1 LINUX01\0', 'latin1');
    expect(decodeOutput('System_WWPN_Query', raw)).toEqual({
      wwpn_array: [
        { fcp_dev_id: '1A00', npiv_wwpn: 'C05076DE33001A00', chpid: '27', perm_wwpn: 'C05076DE33000027', dev_status: '2', owner: 'NONE' },
        { fcp_dev_id: '1B00', npiv_wwpn: 'C05076DE33001B00', chpid: '28', perm_wwpn: 'C05076DE33000028', dev_status: '1', owner: 'LINUX01' },
      ],
    });
  });

  it('round-trips a reply through the response frame', () => {
    const output = { wwpn_array: [{ fcp_dev_id: '1A01', npiv_wwpn: 'C05076DE33001A01', chpid: '27', perm_wwpn: 'C05076DE33000027', dev_status: '3', owner: 'NONE' }] };
    expect(encodeOutput('System_WWPN_Query', output).toString('latin1')).toBe('1A01 C05076DE33001A01 27 C05076DE33000027 3 NONE\0');
    const frame = encodeResponse('System_WWPN_Query', 7, { rc: 0, rs: 0, output });
    expect(decodeResponse('System_WWPN_Query', frame).resp).toEqual({ rc: 0, rs: 0, output });
  });

  it('reads the header-only 4/28 reply (no FCPs) as an empty list', () => {
    const frame = encodeResponse('System_WWPN_Query', 7, { rc: 4, rs: 28, output: {} });
    expect(decodeResponse('System_WWPN_Query', frame).resp).toEqual({ rc: 4, rs: 28, output: { wwpn_array: [] } });
  });
});
