/** '4G' / '512m' / '2048M' → MB; undefined when the text is no storage size. */
export function parseSizeMB(size: string): number | undefined {
  const m = /^([0-9]+)([MmGg])$/.exec(size.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2]!.toUpperCase() === 'G' ? n * 1024 : n;
}

/** MB → the spec form: '<n>G' when divisible by 1024, else '<n>M'. */
export function formatSizeMB(mb: number): string {
  return mb % 1024 === 0 ? `${mb / 1024}G` : `${mb}M`;
}
