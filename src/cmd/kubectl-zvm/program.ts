/**
 * `kubectl zvm`: the imperative verbs (start, stop, console, migrate, image-upload, ...) as a kubectl
 * plugin. Each verb writes what the declarative path writes (spec fields, one-shot annotation tokens,
 * ZGuestActions, ZImages) and, when asked, waits for status; the controllers stay the only actors on z/VM.
 */
import { Command, Option } from 'commander';
import { parseDuration } from '../duration.js';
import type { GlobalOptions } from './connect.js';
import type { PlanOptions } from '../plan.js';
import { POWER_VERBS } from './verbs.js';

export const PLUGIN_NAME = 'kubectl-zvm';
const DEFAULT_TIMEOUT = '5m';

/** The global flags, kubectl's names: the cluster (or --server) and where the guests are. */
function addGlobalOptions(program: Command): void {
  program
    .addOption(new Option('--kubeconfig <file>', 'kubeconfig file (default: KUBECONFIG or ~/.kube/config)'))
    .addOption(new Option('--context <name>', 'kubeconfig context to use'))
    .addOption(new Option('-n, --namespace <ns>', 'namespace of the guest (default: the context\'s, else default)'))
    .addOption(new Option('-A, --all-namespaces', 'guests HOST: show the ZGuests of every namespace'))
    .addOption(new Option('--server <url>', 'a standalone instance\'s admin API instead of a cluster, e.g. http://127.0.0.1:8081').env('ZVM_SERVER'))
    .addOption(new Option('--admin-token-file <path>', 'with --server: the admin token (sent as X-Admin-Token)').env('ZVM_ADMIN_TOKEN_FILE'))
    .addOption(new Option('--token <token>', 'with --server or --upload-url: an auth token from POST /token').env('ZVM_AUTH_TOKEN'))
    .addOption(new Option('--operator-namespace <ns>', 'where the operator keeps the ZHosts\' Secrets (live reads: console, pause, guests)').env('ZVM_OPERATOR_NAMESPACE').default('zvm-system'))
    .addOption(new Option('--take-over', 'change spec fields even when kubectl or Argo CD manage them (default: refuse, naming the owner)'));
}

/** --wait and its bound; `waitDefault` for the verbs that follow progress unless told --no-wait. */
function waitOptions(cmd: Command, waitDefault: boolean): Command {
  return cmd
    .addOption(new Option('--wait', 'return when status says it happened').default(waitDefault))
    .addOption(new Option('--no-wait', 'return once the change is written'))
    .addOption(new Option('--timeout <duration>', 'bound on --wait, e.g. 90s or 5m').default(DEFAULT_TIMEOUT));
}

type Action = (name: string, opts: never) => Promise<void>;

/** Merges the global flags into the verb's and parses the durations. */
function action(run: Action) {
  return async (name: string, _local: unknown, cmd: Command) => {
    const opts = cmd.optsWithGlobals<GlobalOptions & { timeout?: string; interval?: string }>();
    await run(name, { ...opts, timeoutMs: parseDuration(opts.timeout ?? DEFAULT_TIMEOUT), intervalMs: parseDuration(opts.interval ?? '2s') } as never);
  };
}

/** A verb on one ZGuest (`<name>`) with --wait/--timeout after its own `flags`. */
function guestVerb(program: Command, verb: string, description: string, waitDefault: boolean, run: Action, flags = (cmd: Command) => cmd): void {
  waitOptions(flags(program.command(verb).description(description).argument('<name>', 'ZGuest name')), waitDefault).action(action(run));
}

export function createPluginProgram(): Command {
  const program = new Command(PLUGIN_NAME)
    .usage('<verb> [flags]')
    .description('imperative verbs for z/VM guests: each writes what the declarative path writes, the controllers act')
    .showHelpAfterError('(add --help for the verbs and flags)');
  addGlobalOptions(program);

  // each verb's module loads when it runs: --help and completion load none of them (nor the Kubernetes client)
  for (const v of POWER_VERBS) guestVerb(program, v.verb, v.summary, false, async (name, opts) => (await import('./power.js')).runPowerVerb(v, name, opts));
  program.command('console').description('the guest\'s console output (get_console_output); --follow prints new lines as they come')
    .argument('<name>', 'ZGuest name')
    .option('-f, --follow', 'keep reading and print new lines until interrupted')
    .option('--interval <duration>', 'with --follow: how often the console is read', '2s')
    .action(action(async (name, opts) => (await import('./console.js')).runConsole(name, opts)));
  guestVerb(program, 'migrate', 'move a running guest to another SSI member: a ZGuestAction LiveMigrate, then its progress', true, async (name, opts) => (await import('./migrate.js')).runMigrate(name, opts), (cmd) => cmd
    .requiredOption('--to <member>', 'SSI member (system name) to move to')
    .option('--test', 'only check that the move would work')
    .option('--max-total <seconds>', 'seconds the whole relocation may take')
    .option('--max-quiesce <seconds>', 'seconds the guest may be stopped'));
  guestVerb(program, 'capture', 'capture the guest\'s root disk into a new ZImage, then its progress', true, async (name, opts) => (await import('./images.js')).runCapture(name, opts), (cmd) => cmd
    .requiredOption('--image <image>', 'name of the new ZImage')
    .option('--compress-level <n>', 'gzip level 0-9 (default 6)'));
  guestVerb(program, 'deploy', 'write a Ready ZImage onto the (stopped) guest\'s root disk: spec.image, then its progress', true, async (name, opts) => (await import('./images.js')).runDeploy(name, opts), (cmd) => cmd
    .requiredOption('--image <image>', 'a Ready ZImage'));
  waitOptions(program.command('image-upload').description('upload a local image file with progress, verify its md5 and create a ZImage importing it')
    .argument('<name>', 'name of the new ZImage')
    .requiredOption('--file <path>', 'the image file')
    .requiredOption('--os-version <os>', 'e.g. rhel9.2')
    .addOption(new Option('--disk-type <type>', 'disk kind the image was taken from').choices(['DASD', 'SCSI']))
    .option('--host <zhost>', 'ZHost whose repository gets the image (default: default)')
    .option('--upload-url <url>', 'cluster: the REST sidecar (its /files) the file goes through'), true)
    .action(action(async (name, opts) => (await import('./image-upload.js')).runImageUpload(name, opts)));
  program.command('guests').description('what a host reports (directory, logged on, our owner mark) beside the ZGuests of the namespace (-A: all)')
    .argument('<host>', 'ZHost name')
    .action(action(async (host, opts) => (await import('./guests.js')).runHostGuests(host, opts)));
  program.command('plan').description('what applying the manifests would change, down to SMAPI calls; exits 0 when nothing would change, 2 when something would')
    .requiredOption('-f, --filename <file|dir>', 'YAML file (- for stdin) or a directory of .yaml/.yml/.json files')
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (_local: unknown, cmd: Command) => (await import('../plan.js')).plan(cmd.optsWithGlobals<PlanOptions>()));
  program.command('completion').description('shell completion script: bash or zsh')
    .argument('<shell>', 'bash or zsh')
    .action(async (shell: string) => printCompletion(shell, program));
  return program;
}

/** The verbs, for completion. */
export function verbNames(program: Command = createPluginProgram()): string[] {
  return program.commands.map((c) => c.name());
}

function printCompletion(shell: string, program: Command): void {
  const verbs = verbNames(program).join(' ');
  if (shell === 'bash') {
    process.stdout.write(`# kubectl-zvm completion; kubectl itself completes \`kubectl zvm\` through kubectl_complete-zvm
_kubectl_zvm() { [ "$COMP_CWORD" -eq 1 ] && COMPREPLY=( $(compgen -W "${verbs}" -- "\${COMP_WORDS[1]}") ); }
complete -F _kubectl_zvm kubectl-zvm
`);
  } else if (shell === 'zsh') {
    process.stdout.write(`#compdef kubectl-zvm\n_arguments '1:verb:(${verbs})'\n`);
  } else {
    throw new Error(`unknown shell ${shell} (bash or zsh)`);
  }
}

/**
 * kubectl's plugin completion (kubectl >= 1.26): `kubectl_complete-zvm <args...> <partial>` answers
 * candidates one per line and a directive line (:4 = no file completion), as cobra's __complete does.
 */
export function completeArgs(args: string[]): string[] {
  const words = args.filter((a) => !a.startsWith('-'));
  if (words.length <= 1) {
    const partial = words[0] ?? '';
    return [...verbNames().filter((v) => v.startsWith(partial)), ':4'];
  }
  return [':4'];
}

export async function runPlugin(invokedAs: string, argv: string[]): Promise<void> {
  if (invokedAs === 'kubectl_complete-zvm') {
    process.stdout.write(`${completeArgs(argv.slice(2)).join('\n')}\n`);
    return;
  }
  try {
    await createPluginProgram().parseAsync(argv);
  } catch (err) {
    process.stderr.write(`error: ${(await import('./run.js')).describeError(err)}\n`);
    process.exitCode = 1;
  }
}
