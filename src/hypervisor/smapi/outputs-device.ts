/** Output codec of System_WWPN_Query (docs/smapi.md §1.9): one `cstr` line per FCP to the end. */
import type { WwpnInfo, WwpnQueryOutput } from './functions-device.js';
import { codec, readCstrs, writeCstrs } from './output-codec.js';

const FIELDS = ['fcp_dev_id', 'npiv_wwpn', 'chpid', 'perm_wwpn', 'dev_status', 'owner'] as const;

function parseLine(line: string): WwpnInfo {
  const t = line.trim().split(/\s+/);
  return Object.fromEntries(FIELDS.map((f, i) => [f, t[i] ?? ''])) as WwpnInfo;
}

export const wwpnQueryOutput = codec<WwpnQueryOutput>({
  decode: (r) => ({ wwpn_array: readCstrs(r).filter((l) => l.trim() !== '').map(parseLine) }),
  encode: (w, o) => void (o.wwpn_array && writeCstrs(w, o.wwpn_array.map((e) => FIELDS.map((f) => e[f]).join(' ')))),
  empty: () => ({ wwpn_array: [] }),
});
