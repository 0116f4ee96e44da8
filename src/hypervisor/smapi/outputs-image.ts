/** Output codecs of the image (guest), disk and system functions (docs/smapi.md §1.9). */
import { fromEbcdic, toEbcdic } from './ebcdic.js';
import type {
  DefinitionDmOutput, FailingImage, ImageActivateOutput, ImageDeactivateOutput, ImageDiskQueryOutput,
  ImageNameArrayOutput, ImagePerformanceQueryOutput, ImagePerformanceRecord, ImageRecordsOutput,
  OperationIdOutput, RecordArrayOutput, ResponseRecoveryOutput, SystemInformationOutput, VdasdRecord,
} from './functions.js';
import { codec, prefixedList, readAll, readCstrs, readPrefixed, writeCstrs } from './output-codec.js';
import type { WireReader, WireWriter } from './wire.js';

export const operationIdOutput = codec<OperationIdOutput>({
  decode: (r) => ({ operation_id: r.uint4() }),
  encode: (w, o) => void (o.operation_id !== undefined && w.int4(o.operation_id)),
});

function readRecords(r: WireReader): string[] {
  return readPrefixed(r, (a) => readAll(a, (x) => x.str()));
}

function writeRecords(w: WireWriter, recs: readonly string[]): void {
  prefixedList(w, recs, (a, rec) => a.str(rec));
}

export const imageRecordsOutput = codec<ImageRecordsOutput>({
  decode: (r) => ({ image_record_array: readRecords(r) }),
  encode: (w, o) => void (o.image_record_array && writeRecords(w, o.image_record_array)),
});

export const recordArrayOutput = codec<RecordArrayOutput>({
  decode: (r) => ({ record_array: readRecords(r) }),
  encode: (w, o) => void (o.record_array && writeRecords(w, o.record_array)),
});

export const imageNameArrayOutput = codec<ImageNameArrayOutput>({
  decode: (r) => ({ image_name_array: readRecords(r).map((image_name) => ({ image_name })) }),
  encode: (w, o) => void (o.image_name_array && writeRecords(w, o.image_name_array.map((n) => n.image_name))),
});

function readFailing(r: WireReader): FailingImage[] {
  return readPrefixed(r, (a) => readAll(a, (x) => readPrefixed(x, (s) => ({
    image_name: s.str(), return_code: s.int4(), reason_code: s.int4(),
  }))));
}

function writeFailing(w: WireWriter, list: readonly FailingImage[]): void {
  prefixedList(w, list, (a, f) => a.prefixed((s) => s.str(f.image_name).int4(f.return_code).int4(f.reason_code)));
}

export const imageActivateOutput = codec<ImageActivateOutput>({
  decode: (r) => ({ activated: r.uint4(), not_activated: r.uint4(), failing_array: readFailing(r) }),
  encode: (w, o) => {
    if (o.activated === undefined) return;
    w.int4(o.activated).int4(o.not_activated ?? 0);
    writeFailing(w, o.failing_array ?? []);
  },
});

export const imageDeactivateOutput = codec<ImageDeactivateOutput>({
  decode: (r) => ({ deactivated: r.uint4(), not_deactivated: r.uint4(), failing_array: readFailing(r) }),
  encode: (w, o) => {
    if (o.deactivated === undefined) return;
    w.int4(o.deactivated).int4(o.not_deactivated ?? 0);
    writeFailing(w, o.failing_array ?? []);
  },
});

const PERF_INT8 = ['used_cpu_time', 'elapsed_time', 'min_memory', 'max_memory', 'shared_memory', 'used_memory'] as const;
const PERF_INT4 = [
  'active_cpus_in_cec', 'logical_cpus_in_vm', 'guest_cpus', 'min_cpu_count', 'max_cpu_limit', 'processor_share',
  'samples_cpu_in_use', 'samples_cpu_delay', 'samples_page_wait', 'samples_idle', 'samples_other', 'samples_total',
] as const;
/** 2 int4 + 6 int8 + 12 int4 + 8-byte name */
export const PERF_RECORD_BYTES = 112;

function readPerfRecord(r: WireReader): ImagePerformanceRecord {
  const rec = { version: r.uint4(), flags: r.uint4() } as Record<string, number | string>;
  for (const k of PERF_INT8) rec[k] = r.int8();
  for (const k of PERF_INT4) rec[k] = r.uint4();
  rec.guest_name = fromEbcdic(r.bytes(8));
  return rec as ImagePerformanceRecord;
}

function writePerfRecord(w: WireWriter, rec: ImagePerformanceRecord): void {
  w.int4(rec.version).int4(rec.flags);
  for (const k of PERF_INT8) w.int8(rec[k]);
  for (const k of PERF_INT4) w.int4(rec[k]);
  w.raw(toEbcdic(rec.guest_name, 8));
}

/** `int4 record_count`, then per record `int4 record_len` + the 112-byte record. */
export const imagePerformanceOutput = codec<ImagePerformanceQueryOutput>({
  decode: (r) => {
    const count = r.uint4();
    const performance_records: ImagePerformanceRecord[] = [];
    for (let i = 0; i < count; i++) performance_records.push(readPrefixed(r, readPerfRecord));
    return { performance_records };
  },
  encode: (w, o) => {
    if (!o.performance_records) return;
    w.int4(o.performance_records.length);
    for (const rec of o.performance_records) w.prefixed((a) => writePerfRecord(a, rec));
  },
});

/** 29-byte records to the end of the buffer, no count. */
export const imageDiskQueryOutput = codec<ImageDiskQueryOutput>({
  decode: (r) => ({
    vdasd_array: readAll(r, (x): VdasdRecord => ({
      vdasd_vdev: x.fixed(4), vdasd_rdev: x.fixed(4), vdasd_access_type: x.int1(), vdasd_devtype: x.fixed(4),
      vdasd_size: x.int8(), vdasd_unit: x.int1(), vdasd_volid: x.cstr(),
    })),
  }),
  encode: (w, o) => {
    for (const d of o.vdasd_array ?? []) {
      w.raw(d.vdasd_vdev).raw(d.vdasd_rdev).int1(d.vdasd_access_type).raw(d.vdasd_devtype)
        .int8(d.vdasd_size).int1(d.vdasd_unit).cstr(d.vdasd_volid);
    }
  },
});

/** `int4 len` + NUL-terminated strings: async ids with rc 592, diagnostics otherwise. */
export const definitionDmOutput = codec<DefinitionDmOutput>({
  decode: (r, ctx) => {
    const items = readPrefixed(r, readCstrs);
    return ctx.rc === 592 ? { asynch_data: items } : { error_data: items };
  },
  encode: (w, o, ctx) => {
    const items = ctx.rc === 592 ? o.asynch_data : o.error_data;
    if (items) w.prefixed((a) => writeCstrs(a, items));
  },
});

export const systemInformationOutput = codec<SystemInformationOutput>({
  decode: (r) => ({ system_information_data: readPrefixed(r, readCstrs) }),
  encode: (w, o) => void (o.system_information_data && w.prefixed((a) => writeCstrs(a, o.system_information_data ?? []))),
});

/** The embedded original reply stays raw here; the client decodes it as the original function. */
export const responseRecoveryOutput = codec<ResponseRecoveryOutput>({
  decode: (r) => ({ response_data: r.rest().toString('latin1') }),
  encode: (w, o) => void w.raw(o.response_data ?? ''),
  empty: () => ({ response_data: '' }),
});
