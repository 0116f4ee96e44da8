/**
 * Shell completion for `zvm-operator`: the scripts (bash, zsh, fish) call `zvm-operator __complete
 * <words…>`, which answers candidates one per line: subcommands, then kinds, then the names of the
 * resources of that kind in the running instance (asked of its admin API, as kubectl asks its server).
 */
import { KINDS } from '../api/kinds.js';
import { request, type ServerOpts } from './client.js';
import { kindNames } from './kind-names.js';
import { resolveKind } from '../api/kinds.js';
import type { Resource } from '../api/index.js';

/** Commands whose first argument is a kind and whose second is a name of it. */
const KIND_COMMANDS = new Set(['get', 'describe', 'delete']);

export async function candidates(commands: string[], powerVerbs: Set<string>, words: string[], opts: ServerOpts): Promise<string[]> {
  const [command, ...rest] = words;
  const partial = words.at(-1) ?? '';
  if (words.length <= 1) return commands.filter((c) => c.startsWith(command ?? ''));
  if (KIND_COMMANDS.has(command!) && rest.length === 1) return kindNames().filter((n) => n.startsWith(partial));
  const kind = KIND_COMMANDS.has(command!) && rest.length === 2 ? resolveKind(rest[0]!) : powerVerbs.has(command!) && rest.length === 1 ? KINDS.ZGuest : undefined;
  if (!kind) return [];
  try {
    const items = (await request(opts, 'GET', `/resources/${kind.plural}`)) as Resource[];
    return items.map((i) => i.metadata.name).filter((n) => n.startsWith(partial)).sort();
  } catch {
    return []; // no instance running: nothing to offer
  }
}

export function script(shell: string, prog: string): string {
  const fn = `_${prog.replace(/[^A-Za-z0-9]/g, '_')}`;
  switch (shell) {
    case 'bash':
      return `# ${prog} completion: source <(${prog} completion bash)
${fn}() { local IFS=$'\\n'; COMPREPLY=( $(${prog} __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) ); }
complete -o default -F ${fn} ${prog}
`;
    case 'zsh':
      return `#compdef ${prog}
${fn}() { local -a c; c=("\${(@f)$(${prog} __complete "\${words[@]:1:CURRENT-1}" 2>/dev/null)}"); compadd -a c; }
compdef ${fn} ${prog}
`;
    case 'fish':
      return `# ${prog} completion: ${prog} completion fish | source
complete -c ${prog} -f -a '(${prog} __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`;
    default:
      throw new Error(`unknown shell ${shell} (bash, zsh or fish)`);
  }
}
