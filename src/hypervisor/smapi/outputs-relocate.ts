/** Output codec of VMRELOCATE: a length-less error buffer of NUL-terminated strings (only on failure). */
import type { VmrelocateOutput } from './functions-relocate.js';
import { codec, readCstrs, writeCstrs } from './output-codec.js';

export const vmrelocateOutput = codec<VmrelocateOutput>({
  decode: (r) => ({ error_data: readCstrs(r) }),
  encode: (w, o) => void (o.error_data && writeCstrs(w, o.error_data)),
});
