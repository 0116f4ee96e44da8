/**
 * The fenced blocks of the README and the user guide, as the doc test runs them. A block's info string
 * is its language and, for a block the test does not run, one tag saying why:
 * - `cluster`: needs a Kubernetes cluster (kubectl, helm): the kube e2e tier covers those paths;
 * - `setup`: building and starting standalone, which the doc test itself does (`node dist/cmd/main.js standalone`);
 * - `outside`: needs what this machine does not have for the page (TLS files, token auth, feilong's databases,
 *   a global npm install, a backup directory), each covered by its own test where one exists.
 * Every other `sh`, `console` and `yaml` block runs: `sh` as a bash script, `console` as `$ ` commands
 * whose shown output must appear, `yaml` written to the file its first comment names (`# guest.yaml`)
 * or else applied.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const NOT_RUN = ['cluster', 'setup', 'outside'] as const;

export interface Block {
  file: string;
  line: number;
  lang: string;
  tag?: string;
  body: string;
}

/** README.md, then the user guide's pages in name order (later pages may use what earlier ones made). */
export function docFiles(repo: string): string[] {
  const guide = join(repo, 'docs/user-guide');
  return [join(repo, 'README.md'), ...readdirSync(guide).filter((f) => f.endsWith('.md')).sort().map((f) => join(guide, f))];
}

export function blocksOf(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !lines[i]!.startsWith('```')) body.push(lines[i]!);
    blocks.push({ file, line: start + 1, lang: open[1]!, ...(open[2] ? { tag: open[2] } : {}), body: body.join('\n') });
  }
  return blocks;
}

/** `$ cmd` lines (with `\` continuations) and the output shown after each. */
export function consoleSteps(body: string): { command: string; output: string[] }[] {
  const steps: { command: string; output: string[] }[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('$ ')) {
      let command = line.slice(2);
      while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
      steps.push({ command, output: [] });
    } else if (line.trim() && steps.length) {
      steps.at(-1)!.output.push(line.trim());
    }
  }
  return steps;
}
