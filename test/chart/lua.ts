/**
 * Runs Argo CD health scripts with a real Lua 5.1 interpreter (Debian lua5.1; Argo CD embeds
 * gopher-lua, a Lua 5.1). Each script runs in an environment holding only what Argo CD gives a
 * health script without useOpenLibs: `obj` and the base functions, no string/os/io library.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ZvmError } from '../../src/errors.js';

const run = promisify(execFile);
export const LUA = process.env.ZVM_LUA ?? 'lua5.1';

export interface HealthStatus {
  status: string;
  message: string;
}

function luaString(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/** A JSON value as a Lua expression; null and undefined vanish from tables as in Argo CD's conversion. */
export function toLua(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return luaString(value);
  if (Array.isArray(value)) return `{${value.map(toLua).join(', ')}}`;
  const fields = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `[${luaString(k)}] = ${toLua(v)}`);
  return `{${fields.join(', ')}}`;
}

const RUNNER = `
local function sandbox(obj)
  return { obj = obj, ipairs = ipairs, pairs = pairs, next = next, tostring = tostring,
           tonumber = tonumber, type = type, table = table, error = error, pcall = pcall }
end
local function clean(s) return (string.gsub(tostring(s), "[\\t\\n]", " ")) end
for i, case in ipairs(CASES) do
  local chunk, err = loadfile(case.script)
  if chunk == nil then
    print(i .. "\\tLOAD-ERROR\\t" .. clean(err))
  else
    setfenv(chunk, sandbox(case.obj))
    local ok, hs = pcall(chunk)
    if not ok then print(i .. "\\tERROR\\t" .. clean(hs))
    elseif type(hs) ~= "table" then print(i .. "\\tERROR\\tscript returned " .. type(hs))
    else print(i .. "\\t" .. clean(hs.status) .. "\\t" .. clean(hs.message)) end
  end
end
`;

/** Evaluates `script` (a health.lua path) for every object, in one interpreter run. */
export async function evaluateHealth(cases: { script: string; obj: unknown }[]): Promise<HealthStatus[]> {
  const dir = await mkdtemp(join(tmpdir(), 'zvm-lua-'));
  try {
    const table = cases.map((c) => `{ script = ${luaString(c.script)}, obj = ${toLua(c.obj)} }`).join(',\n');
    const file = join(dir, 'run.lua');
    await writeFile(file, `CASES = {\n${table}\n}\n${RUNNER}`);
    const { stdout } = await run(LUA, [file], { timeout: 30_000 });
    const results: HealthStatus[] = [];
    for (const line of stdout.split('\n').filter(Boolean)) {
      const [index, status, message] = line.split('\t');
      results[Number(index) - 1] = { status: status ?? '', message: message ?? '' };
    }
    if (results.length !== cases.length) throw new ZvmError('INTERNAL', `lua printed ${results.length} results for ${cases.length} cases:\n${stdout}`);
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
