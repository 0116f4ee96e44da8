/** Output codecs of the host-wide query functions (functions-host.ts). */
import type { SsiQueryOutput, SystemPerformanceInformationOutput, SystemProcessorQueryOutput } from './functions-host.js';
import { codec, prefixedList, readAll, readCstrs, readPrefixed, writeCstrs } from './output-codec.js';

export const systemPerformanceInformationOutput = codec<SystemPerformanceInformationOutput>({
  decode: (r) => ({ system_performance_information_data: readPrefixed(r, readCstrs) }),
  encode: (w, o) => void (o.system_performance_information_data && w.prefixed((a) => writeCstrs(a, o.system_performance_information_data ?? []))),
});

export const systemProcessorQueryOutput = codec<SystemProcessorQueryOutput>({
  decode: (r) => ({ partition_mode: r.str(), processor_array: r.atEnd ? [] : readPrefixed(r, (a) => readAll(a, (x) => x.str())) }),
  encode: (w, o) => {
    if (o.partition_mode === undefined) return;
    w.str(o.partition_mode);
    prefixedList(w, o.processor_array ?? [], (a, entry) => a.str(entry));
  },
});

export const ssiQueryOutput = codec<SsiQueryOutput>({
  decode: (r) => {
    const [ssi_name = '', ssi_mode = '', cross_system_timeouts = '', ssi_pdr = '', ...members] = readCstrs(r);
    return { ssi_name, ssi_mode, cross_system_timeouts, ssi_pdr, ssi_member_array: members };
  },
  encode: (w, o) => {
    if (o.ssi_name === undefined) return;
    writeCstrs(w, [o.ssi_name, o.ssi_mode ?? '', o.cross_system_timeouts ?? '', o.ssi_pdr ?? '', ...(o.ssi_member_array ?? [])]);
  },
});
