/** A spec memory size ('4G', '512M', the MemorySize pattern's M and G forms) in MB: 4096, 512; undefined for anything else. */
export function memoryToMB(memory: string): number | undefined {
  const m = /^(\d+)([MmGg])$/.exec(memory.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2].toUpperCase() === 'G' ? n * 1024 : n;
}
