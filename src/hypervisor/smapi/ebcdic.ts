/**
 * Just enough EBCDIC (code page 037) for the guest-name field of performance records, the one
 * EBCDIC text in the functions we support (docs/smapi.md §1.2). Characters outside the
 * table map to '?' (0x6F) and back.
 */
const PAIRS: Array<[string, number]> = [
  [' ', 0x40], ['.', 0x4b], ['<', 0x4c], ['(', 0x4d], ['+', 0x4e], ['|', 0x4f], ['&', 0x50],
  ['!', 0x5a], ['$', 0x5b], ['*', 0x5c], [')', 0x5d], [';', 0x5e], ['-', 0x60], ['/', 0x61],
  [',', 0x6b], ['%', 0x6c], ['_', 0x6d], ['>', 0x6e], ['?', 0x6f], [':', 0x7a], ['#', 0x7b],
  ['@', 0x7c], ["'", 0x7d], ['=', 0x7e], ['"', 0x7f],
];

function addRun(from: string, to: string, start: number): void {
  for (let c = from.charCodeAt(0), e = start; c <= to.charCodeAt(0); c++, e++) PAIRS.push([String.fromCharCode(c), e]);
}
addRun('a', 'i', 0x81);
addRun('j', 'r', 0x91);
addRun('s', 'z', 0xa2);
addRun('A', 'I', 0xc1);
addRun('J', 'R', 0xd1);
addRun('S', 'Z', 0xe2);
addRun('0', '9', 0xf0);

const TO_EBCDIC = new Map(PAIRS);
const FROM_EBCDIC = new Map(PAIRS.map(([a, e]) => [e, a]));

/** ASCII text to EBCDIC bytes, blank padded (or cut) to `width`. */
export function toEbcdic(text: string, width: number): Buffer {
  const out = Buffer.alloc(width, 0x40);
  for (let i = 0; i < Math.min(width, text.length); i++) out[i] = TO_EBCDIC.get(text[i] as string) ?? 0x6f;
  return out;
}

/** EBCDIC bytes to ASCII text, trailing blanks removed. */
export function fromEbcdic(bytes: Buffer): string {
  let s = '';
  for (const b of bytes) s += FROM_EBCDIC.get(b) ?? '?';
  return s.replace(/ +$/, '');
}
