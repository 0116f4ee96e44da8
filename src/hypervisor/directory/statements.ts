/**
 * Statement-level helpers for z/VM user directory entries (docs/smapi.md §5.1–5.2):
 * card images carry data in columns 1–72, tokens are blank-separated, keywords are upper case.
 */

/** Columns that carry data; 73–80 hold DirMaint sequence numbers. */
export const RECORD_COLUMNS = 72;

/** One record → a trimmed statement with single blanks between tokens (case kept). */
export function normalizeStatement(record: string): string {
  return record.slice(0, RECORD_COLUMNS).trim().replace(/\s+/g, ' ');
}

/** Records → non-empty normalized statements. */
export function normalizeStatements(records: readonly string[]): string[] {
  const out: string[] = [];
  for (const r of records) {
    const s = normalizeStatement(r);
    if (s) out.push(s);
  }
  return out;
}

/** A statement as SMAPI returns it from Image_Query_DM: upper case, blank padded to 72 bytes. */
export function formatRecord(statement: string): string {
  return normalizeStatement(statement).toUpperCase().padEnd(RECORD_COLUMNS, ' ');
}

export function isComment(statement: string): boolean {
  return statement.startsWith('*');
}

export function tokensOf(statement: string): string[] {
  return statement.trim().toUpperCase().split(/\s+/).filter((t) => t !== '');
}

/** '999' → '0999'; undefined when not 1–4 hex digits. */
export function normalizeVdev(vdev: string): string | undefined {
  const v = vdev.trim().toUpperCase();
  return /^[0-9A-F]{1,4}$/.test(v) ? v.padStart(4, '0') : undefined;
}

/** `count` consecutive device numbers starting at `vdev` (a QDIO NIC occupies 3). */
export function deviceRange(vdev: string, count: number): string[] {
  const base = parseInt(vdev, 16);
  const out: string[] = [];
  for (let i = 0; i < count && base + i <= 0xffff; i++) {
    out.push((base + i).toString(16).toUpperCase().padStart(4, '0'));
  }
  return out;
}

/** `COMMAND DEFINE CPU xx …` (any abbreviation DEF…DEFINE) → the CPU address, else undefined. */
export function commandDefineCpuAddress(tokens: readonly string[]): string | undefined {
  if (tokens[0] !== 'COMMAND' || tokens.length < 4) return undefined;
  if (!/^DEF(I|IN|INE)?$/.test(tokens[1]) || tokens[2] !== 'CPU') return undefined;
  return normalizeCpuAddress(tokens[3]);
}

/** '2' → '02'; undefined when not 1–2 hex digits. */
export function normalizeCpuAddress(addr: string): string | undefined {
  const a = addr.trim().toUpperCase();
  return /^[0-9A-F]{1,2}$/.test(a) ? a.padStart(2, '0') : undefined;
}

/** One NIC after merging every NICDEF statement for its vdev. */
export interface NicDefinition {
  vdev: string;
  type: string;
  devices: number;
  vswitch?: string;
  lanOwner?: string;
  macId?: string;
  vlan?: number;
  portType?: string;
  chpid?: string;
}

/** Applies one NICDEF statement's operands (after `NICDEF vdev`) to a NIC. */
function applyNicOperands(nic: NicDefinition, ops: readonly string[]): void {
  for (let i = 0; i < ops.length; i++) {
    const next = ops[i + 1];
    switch (ops[i]) {
      case 'TYPE':
        if (next) nic.type = next;
        i++;
        break;
      case 'DEVICES':
        if (next && /^\d+$/.test(next)) nic.devices = Number(next);
        i++;
        break;
      case 'LAN':
        // LAN owner name, e.g. LAN SYSTEM VSW1
        if (ops[i + 2]) {
          nic.lanOwner = next;
          nic.vswitch = ops[i + 2];
        }
        i += 2;
        break;
      case 'MACID':
        if (next) nic.macId = next;
        i++;
        break;
      case 'VLAN':
        if (next && /^\d+$/.test(next)) nic.vlan = Number(next);
        i++;
        break;
      case 'PORTTYPE':
        if (next) nic.portType = next;
        i++;
        break;
      case 'CHPID':
        if (next) nic.chpid = next;
        i++;
        break;
      default:
        break;
    }
  }
}

/** Every NIC of an entry; several NICDEF statements for one vdev merge (DirMaint does the same). */
export function parseNicdefs(statements: readonly string[]): Map<string, NicDefinition> {
  const nics = new Map<string, NicDefinition>();
  for (const s of statements) {
    const t = tokensOf(s);
    if (t[0] !== 'NICDEF' || !t[1]) continue;
    const vdev = normalizeVdev(t[1]);
    if (!vdev) continue;
    let nic = nics.get(vdev);
    if (!nic) {
      nic = { vdev, type: 'QDIO', devices: 3 };
      nics.set(vdev, nic);
    }
    applyNicOperands(nic, t.slice(2));
  }
  return nics;
}
