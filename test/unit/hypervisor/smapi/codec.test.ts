/** Codec behaviour not covered by a captured vector: functions without vectors, quirks, bad frames. */
import { randomBytes } from 'node:crypto';
import {
  decodeOutput, decodeParams, decodeRequest, decodeRequestHeader, decodeResponse, encodeOutput, encodeParams,
  encodeRequest, encodeResponse,
} from '../../../../src/hypervisor/smapi/codec.js';
import type { ImagePerformanceRecord } from '../../../../src/hypervisor/smapi/functions.js';
import { SmapiFrameError } from '../../../../src/hypervisor/smapi/wire.js';
import { InvalidInputError } from '../../../../src/errors.js';

const auth = { userid: 'MAINT', password: 'SECRET' };

const perfRecord: ImagePerformanceRecord = {
  version: 1, flags: 0, used_cpu_time: 123456789, elapsed_time: 987654321, min_memory: 0, max_memory: 4194304,
  shared_memory: 0, used_memory: 1048576, active_cpus_in_cec: 4, logical_cpus_in_vm: 2, guest_cpus: 2,
  min_cpu_count: 1, max_cpu_limit: 64, processor_share: 100, samples_cpu_in_use: 10, samples_cpu_delay: 1,
  samples_page_wait: 0, samples_idle: 80, samples_other: 9, samples_total: 100, guest_name: 'LINUX01',
};

describe('SMAPI codec', () => {
  it('encodes the TCP example of reference §1.3 (Image_Deactivate LINUX01 IMMED as MAINT/SECRET)', () => {
    const bytes = encodeRequest({ fn: 'Image_Deactivate', target: 'LINUX01', params: { force_time: 'IMMED' } }, auth);
    expect(bytes.length).toBe(63);
    expect(bytes.readUInt32BE(0)).toBe(0x3b);
  });

  it('round-trips Image_Performance_Query records of 112 bytes with an EBCDIC guest name', () => {
    const out = encodeOutput('Image_Performance_Query', { performance_records: [perfRecord] });
    expect(out.length).toBe(4 + 4 + 112);
    expect(out.subarray(8 + 104).toString('hex')).toBe('d3c9d5e4e7f0f140');
    expect(decodeOutput('Image_Performance_Query', out)).toEqual({ performance_records: [perfRecord] });
  });

  it('sends Image_Performance_Query guest names as NUL-terminated strings', () => {
    const body = encodeParams('Image_Performance_Query', { image_names: ['LINUX01', 'LINUX02'] });
    expect(body.toString('latin1')).toBe('LINUX01\0LINUX02\0');
    expect(decodeParams('Image_Performance_Query', body)).toEqual({ image_names: ['LINUX01', 'LINUX02'] });
  });

  it('lays out Image_Definition_Delete_DM like Update (int4 total + NUL-terminated items)', () => {
    const params = { definition_delete_directory_keyword_parameter_list: ['CPU=CPUADDR=02', 'COMMAND_DEFINE_CPU=CPUADDR=03'] };
    const body = encodeParams('Image_Definition_Delete_DM', params);
    expect(body.readUInt32BE(0)).toBe(body.length - 4);
    expect(decodeParams('Image_Definition_Delete_DM', body)).toEqual(params);
  });

  it('puts Definition DM text in asynch_data for rc 592 and in error_data otherwise', () => {
    const bytes = encodeOutput('Image_Definition_Update_DM', { asynch_data: ['ID=7'] }, 592, 4);
    expect(decodeOutput('Image_Definition_Update_DM', bytes, 592, 4)).toEqual({ asynch_data: ['ID=7'] });
    expect(decodeOutput('Image_Definition_Update_DM', bytes, 8, 3002)).toEqual({ error_data: ['ID=7'] });
  });

  it("accepts zthin's unterminated PAUSE=YES|NO form of Image_Pause", () => {
    expect(decodeParams('Image_Pause', Buffer.from('PAUSE=YES'))).toEqual({ action: 'pause' });
    expect(decodeParams('Image_Pause', Buffer.from('PAUSE=NO'))).toEqual({ action: 'unpause' });
  });

  it('trims the leading blank feilong leaves in keyword names', () => {
    expect(decodeParams('Image_Disk_Query', Buffer.from(' vdasd_id=ALL\0'))).toEqual({ vdasd_id: 'ALL' });
  });

  it('round-trips Image_Activate failures of a name list', () => {
    const output = { activated: 1, not_activated: 1, failing_array: [{ image_name: 'LINUX02', return_code: 200, reason_code: 4 }] };
    const bytes = encodeResponse('Image_Activate', 7, { rc: 200, rs: 28, output });
    expect(decodeResponse('Image_Activate', bytes)).toEqual({ requestId: 7, resp: { rc: 200, rs: 28, output } });
  });

  it('round-trips Query_API_Functional_Level, whose level travels in rs', () => {
    const bytes = encodeResponse('Query_API_Functional_Level', 1, { rc: 0, rs: 720, output: {} });
    expect(bytes.length).toBe(20);
    expect(decodeResponse('Query_API_Functional_Level', bytes).resp).toEqual({ rc: 0, rs: 720, output: {} });
  });

  it('decodes rc and rs as signed 32-bit integers', () => {
    const bytes = encodeResponse('Image_Activate', 1, { rc: -110, rs: -1, output: {} });
    expect(decodeResponse('Image_Activate', bytes).resp).toMatchObject({ rc: -110, rs: -1 });
  });

  it('yields an empty output when a failed call carries bytes it cannot parse', () => {
    expect(decodeOutput('Image_Query_DM', Buffer.from([0, 0, 0, 99, 1]), 400, 4)).toEqual({});
  });

  it('rejects a malformed successful output with a typed error', () => {
    expect(() => decodeOutput('Image_Query_DM', Buffer.from([0, 0, 0, 99, 1]))).toThrow(SmapiFrameError);
  });
});

describe('SMAPI codec on malformed frames', () => {
  const good = encodeRequest({ fn: 'Image_Disk_Create', target: 'LINUX01', params: { image_disk_number: '0100', image_disk_mode: 'MR' } }, auth);

  function codeOf(fn: () => unknown): [number, number] {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(SmapiFrameError);
      expect(err).toBeInstanceOf(InvalidInputError);
      const e = err as SmapiFrameError;
      return [e.rc, e.rs];
    }
    throw new Error('expected a SmapiFrameError');
  }

  it('answers 900/20 when the length field does not match the bytes', () => {
    const bad = Buffer.from(good);
    bad.writeUInt32BE(good.length, 0);
    expect(codeOf(() => decodeRequest(bad))).toEqual([900, 20]);
  });

  it('answers 900/20 for a truncated frame', () => {
    expect(codeOf(() => decodeRequest(good.subarray(0, 10)))).toEqual([900, 20]);
    expect(codeOf(() => decodeRequest(good.subarray(0, 2)))).toEqual([900, 20]);
  });

  it('answers 900/20 when a header string overruns the frame', () => {
    const bad = Buffer.from(good);
    bad.writeUInt32BE(0x7fff, 4);
    expect(codeOf(() => decodeRequest(bad))).toEqual([900, 20]);
  });

  it('answers 900/36 for an absurd length field', () => {
    const bad = Buffer.alloc(8);
    bad.writeUInt32BE(0xfffffff0, 0);
    expect(codeOf(() => decodeRequestHeader(bad))).toEqual([900, 36]);
  });

  it('answers 900/12 for an unknown function', () => {
    const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0]), Buffer.from('\0\0\0\x03Foo\0\0\0\0\0\0\0\0\0\0\0\0', 'latin1')]);
    bytes.writeUInt32BE(bytes.length - 4, 0);
    expect(codeOf(() => decodeRequest(bytes))).toEqual([900, 12]);
  });

  it('answers rc 24 naming the parameter when parameters are truncated or extraneous', () => {
    const header = decodeRequestHeader(good);
    expect(codeOf(() => decodeParams('Image_Disk_Create', header.body.subarray(0, header.body.length - 1)))).toEqual([24, 288]);
    expect(codeOf(() => decodeParams('Image_Disk_Create', Buffer.concat([header.body, Buffer.from([1])])))).toEqual([24, 325]);
  });

  it('rejects a response whose two request ids differ', () => {
    const bytes = encodeResponse('Image_Activate', 5, { rc: 0, rs: 0, output: {} });
    bytes.writeUInt32BE(6, 0);
    expect(() => decodeResponse('Image_Activate', bytes)).toThrow(SmapiFrameError);
  });

  it('never throws anything but SmapiFrameError on random bytes', () => {
    for (let i = 0; i < 500; i++) {
      const junk = randomBytes(1 + (i % 64));
      if (i % 2 === 0 && junk.length >= 4) junk.writeUInt32BE(Math.max(0, junk.length - 4) >>> 0, 0);
      try {
        decodeRequest(junk);
      } catch (err) {
        expect(err).toBeInstanceOf(SmapiFrameError);
      }
    }
  });
});
