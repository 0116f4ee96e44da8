/**
 * The compiled CLI (`npx zvm-operator …`) against a real standalone instance, kubectl-like: output
 * formats, an unknown format refused, describe with conditions and Events, --version, Go durations.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import { runZvm } from '../../builders/zvm.js';
import { standaloneForSuite } from './helpers.js';

const manifest = `apiVersion: zvm.dev/v1beta1
kind: ZGuest
metadata:
  name: kube01
spec:
  userid: KUBE01
  vcpus: 1
  memory: 512M
  powerState: Running
`;

describe('zvm-operator, kubectl-like', () => {
  const s = standaloneForSuite();
  const cli = (...args: string[]) => runZvm([...args, '--server', s.app.adminUrl]);

  beforeAll(async () => {
    const file = join(s.dir, 'kube01.yaml');
    writeFileSync(file, manifest);
    await cli('apply', '-f', file);
    const until = Date.now() + 30_000;
    for (;;) {
      const g = await s.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'kube01' });
      if (g?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) break;
      if (Date.now() > until) throw new Error('kube01 did not become Ready');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);

  it('answers --version with the package version', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect((await runZvm(['--version'])).stdout.trim()).toBe(version);
  });

  it('prints -o wide, name, json, yaml and jsonpath', async () => {
    expect((await cli('get', 'zg')).stdout).not.toContain('PROGRESS');
    expect((await cli('get', 'zg', '-o', 'wide')).stdout).toMatch(/PHASE\s+PROGRESS\s+READY\s+REASON\n.*kube01\s+KUBE01\s+default\s+.*\bon\b.*True\s+\S+\n/);
    expect((await cli('get', 'zg', '-o', 'name')).stdout).toBe('zguest.zvm.dev/kube01\n');
    expect(JSON.parse((await cli('get', 'zg', 'kube01', '-o', 'json')).stdout)).toMatchObject({ kind: 'ZGuest', spec: { userid: 'KUBE01' } });
    expect((await cli('get', 'zg', '-o', 'yaml')).stdout).toMatch(/^apiVersion: v1\nkind: List\n[\s\S]*userid: KUBE01/);
    const jsonpath = await cli('get', 'zg', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}');
    expect(jsonpath.stdout).toBe('kube01=True\n');
  });

  it('refuses an unknown output format with exit 1 and the allowed ones', async () => {
    await expect(cli('get', 'zg', '-o', 'banana')).rejects.toMatchObject({
      code: 1, stdout: '', stderr: expect.stringContaining('unknown output format "banana": use one of table, wide, yaml, json, name, jsonpath=<template>'),
    });
    await expect(cli('get', 'zg', '-o', 'jsonpath={.items')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('bad jsonpath template') });
  });

  it('describes a guest with its conditions and recent Events', async () => {
    const { stdout } = await cli('describe', 'zguest', 'kube01');
    expect(stdout).toMatch(/^Name: +kube01\nNamespace: +default\nKind: +ZGuest\n/);
    expect(stdout).toMatch(/\nConditions:\n {2}Type +Status +Reason +Age +Message\n[\s\S]*\n {2}Ready +True +\w+ /);
    expect(stdout).toMatch(/\nEvents:\n {2}Type +Reason +Age +Message\n[\s\S]*\n {2}Normal +Created +\S+ +defined guest KUBE01\n/);
    await expect(cli('describe', 'zg', 'nobody')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('404') });
  });

  it('takes durations in Go form and refuses others', async () => {
    expect((await cli('get', 'zg', '-o', 'name', '--request-timeout', '1m30s')).stdout).toBe('zguest.zvm.dev/kube01\n');
    await expect(cli('get', 'zg', '--request-timeout', '90 seconds')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('bad duration "90 seconds" (use e.g. 90s, 1m30s, 1h, 500ms)') });
  });
});
