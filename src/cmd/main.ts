#!/usr/bin/env node
/** The one binary (DESIGN.md §1): subcommands run the operator's processes and a small client. */
import { Command, Option } from 'commander';

const program = new Command('zvm-operator').description('Kubernetes operator for IBM z/VM guests').showHelpAfterError();

program
  .command('standalone')
  .description('everything in one process: embedded store, controllers, REST, simulated z/VM host')
  .addOption(new Option('--port <n>', 'REST port').env('ZVM_REST_PORT').default('8888'))
  .addOption(new Option('--bind <addr>', 'address to listen on').env('ZVM_BIND').default('127.0.0.1'))
  .addOption(new Option('--admin-port <n>', 'health, metrics and resource API port').env('ZVM_ADMIN_PORT').default('8081'))
  .addOption(new Option('--state-dir <dir>', 'where the store and the simulator keep their files').env('ZVM_STATE_DIR').default('.zvm-state'))
  .addOption(new Option('--auth <mode>', 'token or none').choices(['token', 'none']).env('ZVM_AUTH').default('none'))
  .addOption(new Option('--admin-token-file <path>', 'admin token for POST /token').env('ZVM_ADMIN_TOKEN_FILE'))
  .addOption(new Option('--sim-latency-ms <n>', 'simulated per-call SMAPI latency').env('ZVM_SIM_LATENCY_MS').default('0'))
  .addOption(new Option('--smapi-tcp', 'run the simulator as a separate process and talk SMAPI to it over TCP').env('ZVM_SMAPI_TCP'))
  .addOption(new Option('--namespace <ns>', 'namespace of guests created through REST').env('ZVM_NAMESPACE').default('default'))
  .action(async (opts) => (await import('./standalone.js')).runStandalone(opts));

program
  .command('sim')
  .description('a simulated z/VM host serving the SMAPI wire protocol over TCP')
  .addOption(new Option('--port <n>', 'SMAPI port (0 picks a free one)').env('ZVM_SIM_PORT').default('44444'))
  .addOption(new Option('--bind <addr>', 'address to listen on').env('ZVM_SIM_BIND').default('127.0.0.1'))
  .addOption(new Option('--state <file>', 'file the simulated host persists to').env('ZVM_SIM_STATE'))
  .addOption(new Option('--userid <id>', 'SMAPI authenticated userid').env('ZVM_SIM_USERID').default('MAINT'))
  .addOption(new Option('--password <pw>', 'SMAPI password').env('ZVM_SIM_PASSWORD').default('MAINT'))
  .addOption(new Option('--latency-ms <n>', 'per-call latency').env('ZVM_SIM_LATENCY_MS').default('0'))
  .addOption(new Option('--concurrency <n>', 'parallel requests served (SMAPI worker pool)').env('ZVM_SIM_CONCURRENCY').default('8'))
  .action(async (opts) => (await import('./sim.js')).runSim(opts));

program
  .command('apply')
  .description('create or update resources from a YAML manifest in a running standalone instance')
  .requiredOption('-f, --filename <file>', 'YAML file with one or more resources (- for stdin)')
  .addOption(new Option('--server <url>', 'standalone admin API').env('ZVM_SERVER').default('http://127.0.0.1:8081'))
  .action(async (opts) => (await import('./client.js')).apply(opts));

program
  .command('get')
  .description('list resources of a kind (zguest, zhost, ...) in a running standalone instance')
  .argument('<kind>', 'kind, plural or short name')
  .argument('[name]', 'one resource')
  .option('-n, --namespace <ns>', 'namespace')
  .option('-o, --output <format>', 'table, yaml or json', 'table')
  .addOption(new Option('--server <url>', 'standalone admin API').env('ZVM_SERVER').default('http://127.0.0.1:8081'))
  .action(async (kind, name, opts) => (await import('./client.js')).get(kind, name, opts));

program
  .command('delete')
  .description('delete a resource in a running standalone instance')
  .argument('<kind>', 'kind, plural or short name')
  .argument('<name>', 'resource name')
  .option('-n, --namespace <ns>', 'namespace')
  .addOption(new Option('--server <url>', 'standalone admin API').env('ZVM_SERVER').default('http://127.0.0.1:8081'))
  .action(async (kind, name, opts) => (await import('./client.js')).remove(kind, name, opts));

program.parseAsync().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
