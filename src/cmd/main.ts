#!/usr/bin/env node
/** The one binary (docs/architecture.md §1): subcommands run the operator's processes and a small client. */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
// the leaf module, not api/index: the CLI loads command modules only when they run
import { DEFAULT_HOST } from '../api/host.js';
import { parseDuration } from './duration.js';
import { POWER_VERBS } from './kubectl-zvm/verbs.js';

/** A port flag: a number 0-65535 (0: any free port), refused at parse time with the flag's name. */
function portOption(flags: string, description: string, env: string, fallback: string): Option {
  const flag = flags.split(' ')[0]!;
  return new Option(flags, description).env(env).default(fallback).argParser((v: string) => {
    if (!/^\d+$/.test(v.trim()) || Number(v) > 65_535) throw new InvalidArgumentError(`${flag} takes a port number 0-65535 (0: any free port), not "${v}"`);
    return v.trim();
  });
}

/** --log-level and --log-format of the processes; a preAction hook hands them to src/log.ts through the environment. */
function withLogOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--log-level <level>', 'least severe log level written').choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).env('LOG_LEVEL').default('info'))
    .addOption(new Option('--log-format <format>', 'text for people, json for machines; auto: text at a terminal, json otherwise').choices(['auto', 'text', 'json']).env('ZVM_LOG_FORMAT').default('auto'))
    .hook('preAction', (_this, action) => {
      const o = action.opts<{ logLevel: string; logFormat: string }>();
      process.env.LOG_LEVEL = o.logLevel;
      process.env.ZVM_LOG_FORMAT = o.logFormat;
    });
}

/** Lifetime of the tokens POST /token issues (feilong's token_validity). */
const tokenValidityOption = () => new Option('--token-validity-seconds <n>', 'lifetime of tokens issued by POST /token').env('ZVM_TOKEN_VALIDITY_SECONDS').default('3600');
/** The client commands' server, credentials (for a standalone instance started with --auth token) and timeout. */
function clientCommand(name: string, o: { hidden?: boolean } = {}): Command {
  return program
    .command(name, o)
    .addOption(new Option('--server <url>', 'standalone admin API').env('ZVM_SERVER').default('http://127.0.0.1:8081'))
    .addOption(new Option('--admin-token-file <path>', 'file with the admin token (sent as X-Admin-Token)').env('ZVM_ADMIN_TOKEN_FILE'))
    .addOption(new Option('--token <token>', 'auth token from POST /token (sent as X-Auth-Token)').env('ZVM_AUTH_TOKEN'))
    .addOption(new Option('--request-timeout <d>', 'give up on a request after this long, e.g. 30s (0: no limit)').default('0'));
}

/** Host keys trusted for every ZHost's management guest, on top of each ZHost's own (README: SSH host keys). */
const knownHostsOption = () => new Option('--ssh-known-hosts <file>', 'OpenSSH known_hosts file of trusted management-guest host keys').env('ZVM_SSH_KNOWN_HOSTS');
/** --image-dir, repeatable; ZVM_IMAGE_DIRS holds several, ':'-separated like PATH. */
function imageDirOption(defaultText: string): Option {
  return new Option('--image-dir <dir>', `local directory file:// image imports/exports and /files may use (repeatable; env ZVM_IMAGE_DIRS, ':'-separated; default ${defaultText})`)
    .argParser((dir: string, previous: string[] | undefined) => [...(previous ?? []), dir]);
}
function imageDirsOf(opts: { imageDir?: string[] }): string[] | undefined {
  return opts.imageDir ?? process.env.ZVM_IMAGE_DIRS?.split(':').filter(Boolean);
}
/** http(s) image imports: size cap, redirect limit, host allow-list (ZVM_IMAGE_HTTP_ALLOW_HOSTS, ','-separated). */
const imageHttpMaxBytesOption = () => new Option('--image-http-max-bytes <n>', 'largest image an http(s) import accepts (default: no cap)').env('ZVM_IMAGE_HTTP_MAX_BYTES');
const imageHttpMaxRedirectsOption = () => new Option('--image-http-max-redirects <n>', 'redirects an http(s) import follows').env('ZVM_IMAGE_HTTP_MAX_REDIRECTS').default('3');
const imageHttpAllowHostOption = () => new Option('--image-http-allow-host <host>', 'host an http(s) import may fetch from (repeatable, *.example.com for subdomains; default: any)')
  .argParser((host: string, previous: string[] | undefined) => [...(previous ?? []), host]);
function imageHttpOf(opts: { imageHttpMaxBytes?: string; imageHttpMaxRedirects?: string; imageHttpAllowHost?: string[] }) {
  const hosts = opts.imageHttpAllowHost ?? process.env.ZVM_IMAGE_HTTP_ALLOW_HOSTS?.split(',').map((h) => h.trim()).filter(Boolean);
  return {
    ...(opts.imageHttpMaxBytes ? { maxBytes: Number(opts.imageHttpMaxBytes) } : {}),
    ...(opts.imageHttpMaxRedirects !== undefined ? { maxRedirects: Number(opts.imageHttpMaxRedirects) } : {}),
    ...(hosts && hosts.length > 0 ? { allowedHosts: hosts } : {}),
  };
}
/** HTTPS of the REST (and standalone admin) listeners (listener-tls.ts, SECURITY.md "Ports"). */
const tlsCertOption = () => new Option('--tls-cert <file>', 'serve HTTPS with this certificate (PEM, TLS 1.2+; re-read when the file changes)').env('ZVM_TLS_CERT');
const tlsKeyOption = () => new Option('--tls-key <file>', 'private key of --tls-cert (PEM)').env('ZVM_TLS_KEY');
const tlsClientCaOption = () => new Option('--tls-client-ca <file>', 'CA whose client certificates authenticate like a token (with --auth token)').env('ZVM_TLS_CLIENT_CA');
// a flag only: an environment variable would turn it on with any value, "false" included
const insecurePlainHttpOption = () => new Option('--insecure-plain-http', 'allow --auth token on a non-loopback address without TLS (tokens cross the network in clear)');
/** How long a host's SMAPI may give no answer before its guests say Unknown (README "When a host is unreachable"). */
function hostUnreachableGraceOption(): Option {
  return new Option('--host-unreachable-grace <d>', 'how long a host\'s SMAPI may give no answer before it is unreachable and its guests say Ready=Unknown').env('ZVM_HOST_UNREACHABLE_GRACE').default('10s');
}

function maxUploadOption(): Option {
  return new Option('--max-upload-bytes <n>', 'size cap of PUT /files uploads (default 16 GiB)').env('ZVM_MAX_UPLOAD_BYTES');
}

/** How long a REST call waits for its operation, and how many deploy/capture calls may run (src/rest/README.md). */
const operationTimeoutOption = () => new Option('--operation-timeout <d>', 'how long a REST call waits for its operation to end (e.g. 1800s, 30m); then it answers 202 "still running"')
  .env('ZVM_OPERATION_TIMEOUT').default('1800s');
const maxDeployCaptureOption = () => new Option('--max-concurrent-deploy-capture <n>', 'deploy and capture REST calls that may run at once; more answer 503')
  .env('ZVM_MAX_CONCURRENT_DEPLOY_CAPTURE').default('20');

/** package.json: beside src/ and dist/ in a checkout, and in the image's /app. */
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('zvm-operator').description('Kubernetes operator for IBM z/VM guests').version(version).showHelpAfterError('(add --help for the flags)');

withLogOptions(program
  .command('standalone'))
  .description('everything in one process: embedded store, controllers, REST, simulated z/VM host')
  .addOption(portOption('--port <n>', 'REST port', 'ZVM_REST_PORT', '8888'))
  .addOption(new Option('--bind <addr>', 'address to listen on').env('ZVM_BIND').default('127.0.0.1'))
  .addOption(portOption('--admin-port <n>', 'health, metrics and resource API port', 'ZVM_ADMIN_PORT', '8081'))
  .addOption(new Option('--admin-bind <addr>', 'address of the admin API (it can write every resource)').env('ZVM_ADMIN_BIND').default('127.0.0.1'))
  .addOption(new Option('--state-dir <dir>', 'where the store and the simulator keep their files').env('ZVM_STATE_DIR').default('.zvm-state'))
  .addOption(new Option('--auth <mode>', 'token or none').choices(['token', 'none']).env('ZVM_AUTH').default('none'))
  .addOption(new Option('--admin-token-file <path>', 'admin token for POST /token and the admin API').env('ZVM_ADMIN_TOKEN_FILE'))
  .addOption(tokenValidityOption())
  .addOption(tlsCertOption()).addOption(tlsKeyOption()).addOption(tlsClientCaOption()).addOption(insecurePlainHttpOption())
  .addOption(new Option('--sim-latency-ms <n>', 'simulated per-call SMAPI latency').env('ZVM_SIM_LATENCY_MS').default('0'))
  .addOption(new Option('--smapi-tcp', 'run the simulator as a separate process and talk SMAPI to it over TCP').env('ZVM_SMAPI_TCP'))
  .addOption(new Option('--sim-address <host:port>', 'use a simulator already running as `zvm-operator sim` (it outlives this process)').env('ZVM_SIM_ADDRESS'))
  .addOption(new Option('--sim-userid <id>', 'SMAPI userid of --sim-address').env('ZVM_SIM_USERID').default('MAINT'))
  .addOption(new Option('--sim-password <pw>', 'SMAPI password of --sim-address').env('ZVM_SIM_PASSWORD').default('MAINT'))
  .addOption(new Option('--namespace <ns>', 'namespace of guests created through REST').env('ZVM_NAMESPACE').default('default'))
  .addOption(imageDirOption('<state-dir>/files'))
  .addOption(maxUploadOption())
  .addOption(imageHttpMaxBytesOption())
  .addOption(imageHttpMaxRedirectsOption())
  .addOption(imageHttpAllowHostOption())
  .addOption(new Option('--drift-period <d>', 'how often each host is asked for the power state of all its guests (one call per host)').env('ZVM_DRIFT_PERIOD').default('15s'))
  .addOption(hostUnreachableGraceOption())
  .addOption(new Option('--host-facts-period <d>', 'how long GET /host and the disk-pool reads reuse one set of host queries when nothing was written (0: every read asks, concurrent reads still share one)').env('ZVM_HOST_FACTS_PERIOD').default('5s'))
  .addOption(new Option('--store <kind>', 'state store: sqlite (state.db) or json (the old store.json)').choices(['sqlite', 'json']).env('ZVM_STORE').default('sqlite'))
  .addOption(operationTimeoutOption())
  .addOption(maxDeployCaptureOption())
  .addOption(new Option('--secrets-dir <dir>', 'credentials of extra ZHosts: <dir>/<secret>/<key> files, as a mounted Secret (default <state-dir>/secrets)').env('ZVM_SECRETS_DIR'))
  .action(async (opts) => {
    // the lock first, before the heavy modules load: a second process on the same state answers at once. A
    // directory that does not exist yet holds no other process: it is locked after the options are checked
    // (startStandalone), so that a refused start leaves nothing behind
    const lock = existsSync(opts.stateDir) ? (await import('./state-lock.js')).lockStateDir(opts.stateDir) : undefined;
    await (await import('./standalone.js')).runStandalone({ ...opts, imageDirs: imageDirsOf(opts), imageHttp: imageHttpOf(opts), lock });
  });

withLogOptions(program
  .command('sim'))
  .description('a simulated z/VM host serving the SMAPI wire protocol over TCP')
  .addOption(portOption('--port <n>', 'SMAPI port (0 picks a free one)', 'ZVM_SIM_PORT', '44444'))
  .addOption(new Option('--bind <addr>', 'address to listen on').env('ZVM_SIM_BIND').default('127.0.0.1'))
  .addOption(new Option('--state <file>', 'file the simulated host persists to').env('ZVM_SIM_STATE'))
  .addOption(new Option('--userid <id>', 'SMAPI authenticated userid').env('ZVM_SIM_USERID').default('MAINT'))
  .addOption(new Option('--password <pw>', 'SMAPI password').env('ZVM_SIM_PASSWORD').default('MAINT'))
  .addOption(new Option('--latency-ms <n>', 'per-call latency').env('ZVM_SIM_LATENCY_MS').default('0'))
  .addOption(new Option('--concurrency <n>', 'parallel requests served (SMAPI worker pool)').env('ZVM_SIM_CONCURRENCY').default('8'))
  .addOption(new Option('--tls-cert <file>', 'serve SMAPI over TLS with this certificate (PEM)').env('ZVM_SIM_TLS_CERT'))
  .addOption(new Option('--tls-key <file>', 'private key of --tls-cert (PEM)').env('ZVM_SIM_TLS_KEY'))
  .addOption(new Option('--ssh-port <n>', 'also serve the management guest over SSH (vmcp, image tools, SFTP); 0 picks a free port').env('ZVM_SIM_SSH_PORT'))
  .addOption(new Option('--ssh-dir <dir>', 'files of the simulated management guest (image repository, disk contents)').env('ZVM_SIM_SSH_DIR').default('sim-mgmt'))
  .addOption(new Option('--ssh-user <name>', 'SSH login of the management guest').env('ZVM_SIM_SSH_USER').default('zcc'))
  .addOption(new Option('--ssh-password <pw>', 'SSH password (omit for key-only login)').env('ZVM_SIM_SSH_PASSWORD'))
  .addOption(new Option('--ssh-authorized-keys <file>', 'OpenSSH public keys allowed to log in').env('ZVM_SIM_SSH_AUTHORIZED_KEYS'))
  .addOption(new Option('--hosts <n>', 'serve n independent simulated hosts, one SMAPI port each (logged as smapiPorts)').env('ZVM_SIM_HOSTS').default('1'))
  .addOption(new Option('--call-log <file>', 'append every SMAPI request (time, client address, host index, function) as a JSON line').env('ZVM_SIM_CALL_LOG'))
  .action(async (opts) => (await import('./sim.js')).runSim(opts));

clientCommand('apply')
  .description('create or update resources from a YAML manifest in a running standalone instance')
  .requiredOption('-f, --filename <file>', 'YAML file with one or more resources (- for stdin)')
  .action(async (opts) => (await import('./client.js')).apply(opts));

clientCommand('plan')
  .description('what applying the manifests would change, down to SMAPI calls, directory statements and CP commands; exits 0 when nothing would change, 2 when something would')
  .requiredOption('-f, --filename <file|dir>', 'YAML file (- for stdin) or a directory of .yaml/.yml/.json files')
  .option('-o, --output <format>', 'text or json', 'text')
  .option('--kubeconfig <file>', 'plan against a cluster instead of --server: its resources, and its hosts over SMAPI as each ZHost and Secret say')
  .option('--context <name>', 'with a cluster: the kubeconfig context (implies a cluster)')
  .option('-n, --namespace <ns>', 'with a cluster: namespace of manifests that name none (default: the context\'s, else default)')
  .addOption(new Option('--operator-namespace <ns>', 'with a cluster: where the operator keeps the ZHosts\' Secrets').env('ZVM_OPERATOR_NAMESPACE').default('zvm-system'))
  .action(async (opts) => (await import('./plan.js')).plan(opts));

clientCommand('get')
  .description('list resources of a kind (zguest, zhost, ...) in a running standalone instance')
  .argument('<kind>', 'kind, plural or short name')
  .argument('[name]', 'one resource')
  .option('-n, --namespace <ns>', 'namespace (default: every namespace)')
  .option('-A, --all-namespaces', 'every namespace (the default here, as no -n)')
  .option('-l, --selector <selector>', 'label selector, e.g. app=web,tier!=db')
  .option('-o, --output <format>', 'table, wide, yaml, json, name or jsonpath=<template>', 'table')
  .option('-w, --watch', 'after the table, print a row again whenever it changes (e.g. image transfer progress)')
  .action(async (kind, name, opts) => (await import('./client.js')).get(kind, name, opts));

clientCommand('describe')
  .description('one resource in detail: spec, status, conditions and its recent Events')
  .argument('<kind>', 'kind, plural or short name')
  .argument('<name>', 'resource name')
  .option('-n, --namespace <ns>', 'namespace')
  .action(async (kind, name, opts) => (await import('./client.js')).describe(kind, name, opts));

clientCommand('delete')
  .description('delete a resource in a running standalone instance')
  .argument('<kind>', 'kind, plural or short name')
  .argument('<name>', 'resource name')
  .option('-n, --namespace <ns>', 'namespace')
  .action(async (kind, name, opts) => (await import('./client.js')).remove(kind, name, opts));

// the power verbs of `kubectl zvm`, for a standalone instance: one implementation (kubectl-zvm/power.ts)
for (const v of POWER_VERBS) {
  clientCommand(v.verb)
    .description(`${v.summary} (as kubectl zvm ${v.verb})`)
    .argument('<name>', 'ZGuest name')
    .option('-n, --namespace <ns>', 'namespace', 'default')
    .option('--wait', 'return when status says it happened (else once the change is written)')
    .option('--timeout <d>', 'bound on --wait, e.g. 90s or 5m', '5m')
    .action(async (name: string, opts) => (await import('./kubectl-zvm/power.js')).runPowerVerb(v, name, {
      ...opts, operatorNamespace: 'zvm-system', timeoutMs: parseDuration(opts.timeout),
    }));
}

program
  .command('completion')
  .description('shell completion script (commands, kinds, resource names): source <(zvm-operator completion bash)')
  .argument('<shell>', 'bash, zsh or fish')
  .action(async (shell: string) => void process.stdout.write((await import('./completion.js')).script(shell, 'zvm-operator')));

clientCommand('__complete', { hidden: true })
  .argument('[words...]')
  .action(async (words: string[], opts) => {
    const commands = program.commands.map((c) => c.name()).filter((n) => !n.startsWith('_'));
    const found = await (await import('./completion.js')).candidates(commands, new Set(POWER_VERBS.map((v) => v.verb)), words, opts);
    process.stdout.write(found.map((c) => `${c}\n`).join(''));
  });

withLogOptions(program
  .command('controller'))
  .description('the controllers against a Kubernetes API server: leader election, probes, metrics, Events')
  .addOption(new Option('--kubeconfig <file>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config or in-cluster)'))
  .addOption(new Option('--namespace <ns>', 'namespace of the Lease and of host Secrets (default: the pod namespace)').env('POD_NAMESPACE'))
  .addOption(new Option('--metrics-bind-address <addr>', 'Prometheus /metrics (0 turns it off)').env('ZVM_METRICS_BIND_ADDRESS').default(':8080'))
  .addOption(new Option('--health-probe-bind-address <addr>', '/healthz and /readyz (0 turns them off)').env('ZVM_HEALTH_PROBE_BIND_ADDRESS').default(':8081'))
  .addOption(new Option('--metrics-port <n>', 'shorthand for --metrics-bind-address :<n>').env('ZVM_METRICS_PORT'))
  .addOption(new Option('--probe-port <n>', 'shorthand for --health-probe-bind-address :<n>').env('ZVM_PROBE_PORT'))
  .addOption(new Option('--leader-elect', 'share the hosts between replicas on per-host Leases (default)').default(true))
  .addOption(new Option('--no-leader-elect', 'run without Leases, holding every host (one replica only)'))
  .addOption(new Option('--leader-election-id <name>', 'prefix of the host and replica Leases').env('ZVM_LEADER_ELECTION_ID').default('zvm-operator-leader'))
  .addOption(new Option('--leader-elect-lease-duration <d>', 'how long a lease is valid').env('ZVM_LEASE_DURATION').default('15s'))
  .addOption(new Option('--leader-elect-renew-deadline <d>', 'the leader gives up after failing to renew this long').env('ZVM_RENEW_DEADLINE').default('10s'))
  .addOption(new Option('--leader-elect-retry-period <d>', 'interval of lease attempts').env('ZVM_RETRY_PERIOD').default('2s'))
  .addOption(new Option('--sim-state-dir <dir>', 'state files of simulated ZHosts').env('ZVM_SIM_STATE_DIR').default('/tmp'))
  .addOption(knownHostsOption())
  .addOption(new Option('--concurrency <n>', 'parallel reconciles').env('ZVM_CONCURRENCY').default('8'))
  .addOption(new Option('--poll-ms <n>', 'requeue interval while a transition is under way').env('ZVM_POLL_MS'))
  .addOption(new Option('--grace-period <d>', 'time for leader work to finish on SIGTERM').env('ZVM_GRACE_PERIOD').default('30s'))
  .addOption(imageDirOption('/var/lib/zvmsdk/files'))
  .addOption(imageHttpMaxBytesOption())
  .addOption(imageHttpMaxRedirectsOption())
  .addOption(imageHttpAllowHostOption())
  .addOption(new Option('--drift-period <d>', 'how often each host is asked for the power state of all its guests (one call per host)').env('ZVM_DRIFT_PERIOD').default('15s'))
  .addOption(hostUnreachableGraceOption())
  .addOption(new Option('--smapi-local-address <addr>', 'local address SMAPI connections start from (multi-homed nodes)').env('ZVM_SMAPI_LOCAL_ADDRESS'))
  .addOption(new Option('--capi', 'also run the Cluster API infrastructure provider (ZVMCluster, ZVMMachine; needs their CRDs)').env('ZVM_CAPI'))
  .addOption(new Option('--watch-filter <value>', 'Cluster API: reconcile only objects labelled cluster.x-k8s.io/watch-filter=<value>').env('ZVM_WATCH_FILTER'))
  .action(async (opts) => (await import('./controller.js')).runController({
    ...opts,
    imageDirs: imageDirsOf(opts),
    imageHttp: imageHttpOf(opts),
    metricsBindAddress: opts.metricsPort !== undefined ? `:${opts.metricsPort}` : opts.metricsBindAddress,
    healthProbeBindAddress: opts.probePort !== undefined ? `:${opts.probePort}` : opts.healthProbeBindAddress,
    leaderElect: opts.leaderElect,
    leaseDuration: opts.leaderElectLeaseDuration,
    renewDeadline: opts.leaderElectRenewDeadline,
    retryPeriod: opts.leaderElectRetryPeriod,
  }));

withLogOptions(program
  .command('rest'))
  .description('the feilong-compatible REST sidecar against a Kubernetes API server')
  .addOption(new Option('--kubeconfig <file>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config or in-cluster)'))
  .addOption(new Option('--namespace <ns>', 'namespace of host Secrets and the admin token Secret (default: the pod namespace)').env('POD_NAMESPACE'))
  .addOption(new Option('--guest-namespace <ns>', 'namespace of guests created through REST (default: --namespace)').env('ZVM_GUEST_NAMESPACE'))
  .addOption(new Option('--guest-namespaces <list>', 'comma-separated namespaces whose guests REST serves (default: every namespace)').env('ZVM_GUEST_NAMESPACES'))
  .addOption(new Option('--take-over', 'let REST requests change spec fields that kubectl or Argo CD manage (default: answer 409 naming the owner)').env('ZVM_REST_TAKE_OVER'))
  .addOption(portOption('--port <n>', 'REST port', 'ZVM_REST_PORT', '8888'))
  .addOption(new Option('--bind <addr>', 'address to listen on').env('ZVM_BIND').default('0.0.0.0'))
  .addOption(new Option('--metrics-bind-address <addr>', 'Prometheus /metrics, e.g. :8082 (default 0: off)').env('ZVM_REST_METRICS_BIND_ADDRESS').default('0'))
  .addOption(new Option('--default-host <name>', 'ZHost of guests created through REST').env('ZVM_DEFAULT_HOST').default(DEFAULT_HOST))
  .addOption(new Option('--auth <mode>', 'token or none').choices(['token', 'none']).env('ZVM_AUTH').default('token'))
  .addOption(new Option('--admin-token-file <path>', 'admin token for POST /token (a mounted Secret; re-read on each use)').env('ZVM_ADMIN_TOKEN_FILE'))
  .addOption(new Option('--admin-token-secret <name>', 'Secret with key token, read through the API at start').env('ZVM_ADMIN_TOKEN_SECRET'))
  .addOption(tokenValidityOption())
  .addOption(tlsCertOption()).addOption(tlsKeyOption()).addOption(tlsClientCaOption()).addOption(insecurePlainHttpOption())
  .addOption(new Option('--sim-state-dir <dir>', 'the controller\'s --sim-state-dir: live reads of simulated ZHosts answer from its state files (default: an empty host in memory)').env('ZVM_REST_SIM_STATE_DIR'))
  .addOption(knownHostsOption())
  .addOption(operationTimeoutOption())
  .addOption(maxDeployCaptureOption())
  .addOption(imageDirOption('/var/lib/zvmsdk/files'))
  .addOption(maxUploadOption())
  .action(async (opts) => (await import('./rest.js')).runRest({ ...opts, imageDirs: imageDirsOf(opts) }));

program
  .command('migrate')
  .description('turn another z/VM manager\'s state into resources')
  .command('feilong')
  .description('read a feilong (z/VM Cloud Connector) installation\'s databases read-only; write manifests, a summary, and with --apply the resources')
  .requiredOption('--db-dir <dir>', 'feilong\'s database directory (/var/lib/zvmsdk/databases)')
  .option('--host <name>', 'ZHost of the migrated resources', DEFAULT_HOST)
  .option('--namespace <ns>', 'namespace of the migrated ZGuests', 'default')
  .option('-o, --output <dir>', 'write one manifest per resource and summary.txt/summary.json here')
  .option('--apply', 'write the resources (and their status) to the store of --state-dir or --kubeconfig')
  .option('--state-dir <dir>', 'a stopped standalone instance: its store, and its simulated host for the live directory')
  .addOption(new Option('--store <kind>', 'the standalone instance\'s state store (its --store)').choices(['sqlite', 'json']).default('sqlite'))
  .option('--kubeconfig <file>', 'a cluster: resources through the kube API')
  .option('--smapi <host:port>', 'the z/VM host\'s SMAPI server for the live directory (ZVM_SMAPI_USERID, ZVM_SMAPI_PASSWORD)')
  .option('--image-repository <path>', 'image repository on the management guest', '/var/lib/zvmsdk/images')
  .option('--root-vdev <vdev>', 'file name of an image in its repository folder (feilong\'s user_root_vdev)', '0100')
  .option('--orphan', 'deletionPolicy Orphan on the ZGuests: deleting a resource leaves the guest (for a trial period)')
  .action(async (opts) => (await import('./migrate.js')).runMigrateFeilong(opts));

/** Installed as kubectl-zvm (or kubectl_complete-zvm) the same program is the kubectl plugin. */
const invokedAs = basename(process.argv[1] ?? '').replace(/\.js$/, '');
const run = invokedAs.startsWith('kubectl-zvm') || invokedAs === 'kubectl_complete-zvm'
  ? import('./kubectl-zvm/program.js').then((m) => m.runPlugin(invokedAs, process.argv))
  : program.parseAsync();
run.catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
