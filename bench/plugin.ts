/**
 * `npm run bench -- --only plugin`: how fast the kubectl plugin answers at the keyboard (issues 38 and 39):
 * the compiled program installed as `kubectl-zvm` and `kubectl_complete-zvm` (symlinks, as npm installs its
 * bins), timed over repeated runs of `--help` and of a TAB completion, with each run's peak RSS from GNU time
 * when it is there. Neither talks to a cluster, so neither may load the Kubernetes client.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Figure } from './lib/figures.js';

const MAIN = resolve('dist/cmd/main.js');
const GNU_TIME = '/usr/bin/time';

interface Run {
  seconds: number;
  /** peak RSS in MB, when GNU time measured it */
  rssMb?: number;
}

function once(bin: string, args: string[]): Run {
  const timed = existsSync(GNU_TIME);
  const start = process.hrtime.bigint();
  const r = timed
    ? spawnSync(GNU_TIME, ['-f', '%M', bin, ...args], { encoding: 'utf8' })
    : spawnSync(bin, args, { encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} exited ${String(r.status)}: ${r.stderr}`);
  const kb = timed ? Number(r.stderr.trim().split('\n').at(-1)) : NaN;
  return { seconds, ...(Number.isFinite(kb) ? { rssMb: kb / 1024 } : {}) };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function figures(id: string, what: string, runs: Run[]): Figure[] {
  const load = loadavg()[0]!.toFixed(1);
  const rss = runs.flatMap((r) => (r.rssMb === undefined ? [] : [r.rssMb]));
  return [
    {
      id: `plugin.${id}.seconds`, name: `plugin: ${what}, median wall time`, value: median(runs.map((r) => r.seconds)) * 1000, unit: 'ms',
      target: { op: '<=', value: 300 }, detail: `${runs.length} runs after one warm-up, load ${load}: ${runs.map((r) => (r.seconds * 1000).toFixed(0)).join(', ')} ms`,
    },
    {
      id: `plugin.${id}.rss`, name: `plugin: ${what}, peak RSS`, value: rss.length ? median(rss) : null, unit: 'MB',
      target: { op: '<=', value: 70 }, detail: rss.length ? `median of ${rss.length} runs (GNU time)` : 'not measured: no GNU time at /usr/bin/time',
    },
  ];
}

export function runPlugin(o: { runs: number }): Figure[] {
  const dir = mkdtempSync(join(tmpdir(), 'zvm-bench-plugin-'));
  try {
    const plugin = join(dir, 'kubectl-zvm');
    const complete = join(dir, 'kubectl_complete-zvm');
    symlinkSync(MAIN, plugin);
    symlinkSync(MAIN, complete);
    const measure = (bin: string, args: string[]): Run[] => {
      once(bin, args); // warm-up: the file cache
      return Array.from({ length: o.runs }, () => once(bin, args));
    };
    return [...figures('help', 'kubectl-zvm --help', measure(plugin, ['--help'])), ...figures('complete', 'TAB completion (kubectl_complete-zvm st)', measure(complete, ['st']))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
