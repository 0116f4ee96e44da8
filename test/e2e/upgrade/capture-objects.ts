/**
 * What capture-release.ts creates on release 0.1.0: a ZHost with SMAPI and a management guest, a
 * vswitch, an imported image, a class and a pool of 2, and 48 guests of four shapes (running; stopped;
 * a NIC on the vswitch and a data disk; a root disk with the image deployed), 50 ZGuests in all.
 */
import { GUEST_NAMESPACE, OPERATOR_NAMESPACE } from './release.js';
import { HOST_AUTH, MGMT_USER } from './fixture-host.js';

export const IMAGE = 'rhel9-base';
export const POOL_REPLICAS = 2;
export const PLAIN_GUESTS = 48;
const V = 'zvm.dev/v1alpha1';

export function secrets(): Record<string, unknown>[] {
  const meta = (name: string) => ({ name, namespace: OPERATOR_NAMESPACE });
  return [
    { apiVersion: 'v1', kind: 'Secret', metadata: meta('host-smapi'), stringData: { userid: HOST_AUTH.userid, password: HOST_AUTH.password } },
    { apiVersion: 'v1', kind: 'Secret', metadata: meta('host-mgmt'), stringData: { password: HOST_AUTH.password } },
  ];
}

export function zhost(ports: { smapiPort: number; sshPort: number }): Record<string, unknown> {
  return {
    apiVersion: V, kind: 'ZHost', metadata: { name: 'default' },
    spec: {
      smapi: { host: '127.0.0.1', port: ports.smapiPort, credentialsSecret: 'host-smapi' },
      management: { host: '127.0.0.1', port: ports.sshPort, user: MGMT_USER, keySecret: 'host-mgmt', trustOnFirstUse: true },
    },
  };
}

export function clusterObjects(imageDir: string): Record<string, unknown>[] {
  return [
    { apiVersion: V, kind: 'ZVswitch', metadata: { name: 'vsw1' }, spec: { switchName: 'VSW1', rdev: '1000', authorizedUsers: [] } },
    { apiVersion: V, kind: 'ZImage', metadata: { name: IMAGE }, spec: { source: { import: { url: `file://${imageDir}/${IMAGE}.img`, osVersion: 'rhel9.2' } } } },
    { apiVersion: V, kind: 'ZGuestClass', metadata: { name: 'small' }, spec: { vcpus: 1, maxCpus: 4, memory: '512M', maxMemory: '2G', disks: [{ size: '1G', boot: true }] } },
  ];
}

export function namespacedObjects(): Record<string, unknown>[] {
  const meta = (name: string) => ({ name, namespace: GUEST_NAMESPACE });
  const pool = {
    apiVersion: V, kind: 'ZGuestPool', metadata: meta('web'),
    spec: { replicas: POOL_REPLICAS, useridPrefix: 'WEB', maxUnavailable: 1, template: { spec: { class: 'small', image: IMAGE, powerState: 'Running' } } },
  };
  const guests = Array.from({ length: PLAIN_GUESTS }, (_, i) => {
    const n = i + 1;
    const base = { userid: `APP${String(n).padStart(5, '0')}`, vcpus: 1 + (n % 2), memory: '512M', maxMemory: '1G' };
    const shape = [
      { powerState: 'On' },
      { powerState: 'Off' },
      { powerState: 'On', nics: [{ vdev: '1000', vswitch: 'VSW1' }], disks: [{ size: '100M', vdev: '0201' }] },
      { powerState: 'On', disks: [{ size: '1G', boot: true }], image: IMAGE },
    ][n % 4];
    return { apiVersion: V, kind: 'ZGuest', metadata: { ...meta(`app-${String(n).padStart(2, '0')}`), labels: { shape: String(n % 4) } }, spec: { ...base, ...shape } };
  });
  return [pool, ...guests];
}
