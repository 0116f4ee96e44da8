/**
 * The command users run — `npx zvm-operator`, the image's `node dist/cmd/main.js` — as arguments for
 * `spawn(process.execPath, …)`. Every child process we start (the simulator of --smapi-tcp, the
 * tests' and benches' processes) goes through here, so what runs is always the compiled build.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fromSources = import.meta.url.endsWith('.ts');
/** dist/cmd/main.js: beside this file when compiled; ../../dist from the sources (tests, benches). */
export const MAIN_JS = fileURLToPath(new URL(fromSources ? '../../dist/cmd/main.js' : './main.js', import.meta.url));

/**
 * Node's flags for the processes we ship: `npm start` and the image's entrypoint (image/build.sh) give
 * the same (issue 38, bench/README.md):
 * - the young generation held to 2 × 2 MB: V8 grows it to 2 × 32 MB while a start-up caches thousands of
 *   objects (all survive) and keeps it, ~60 MB of an idle operator's RSS; 2 MB rather than 4 took another
 *   3–4 MB off an idle standalone for 2–4 % of REST req per CPU-second on `/` and `/guests` (power_state and
 *   the density gate's CPU per guest unchanged, same-machine A/B);
 * - no Maglev (V8's mid-tier JIT): it only shortens warm-up, and its code and compile memory were ~3 MB of
 *   an idle standalone; TurboFan still optimizes what is hot (REST and density unchanged in A/B runs).
 */
export const NODE_FLAGS = ['--max-semi-space-size=2', '--no-maglev'];

let checked = false;

/** `[...NODE_FLAGS, dist/cmd/main.js, ...args]`; from the sources, refuses a missing or stale build rather than run old code. */
export function zvmArgs(args: string[]): string[] {
  if (fromSources && !checked) {
    assertFresh(fileURLToPath(new URL('../', import.meta.url)));
    checked = true;
  }
  return [...NODE_FLAGS, MAIN_JS, ...args];
}

function assertFresh(srcDir: string): void {
  let built: number;
  try {
    built = statSync(MAIN_JS).mtimeMs;
  } catch {
    throw new Error(`${MAIN_JS} is missing: run \`npm run build\` (npm ci and npm test build it)`);
  }
  const newer = newestTs(srcDir);
  if (newer.mtimeMs > built) throw new Error(`dist/ is older than ${newer.path}: run \`npm run build\` (npm test builds it)`);
}

function newestTs(dir: string): { path: string; mtimeMs: number } {
  let best = { path: dir, mtimeMs: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const mtimeMs = statSync(path).mtimeMs;
    if (mtimeMs > best.mtimeMs) best = { path, mtimeMs };
  }
  return best;
}
