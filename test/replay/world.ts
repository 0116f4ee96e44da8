/**
 * The objects the captures name (guest LINUX01/LINUX02, vswitch VSW1, image rhel8.6-s390x-dasd, the two FCP
 * templates, NIC 1000 …), brought into the state a capture needs through our own REST calls, so that each
 * replayed request is judged on a world where its objects exist.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION, type ZFcpTemplate } from '../../src/api/index.js';
import type { Standalone } from '../../src/cmd/standalone.js';
import { buildImageHeader } from '../../src/hypervisor/mgmt/index.js';
import { http, type Envelope } from '../integration/standalone/helpers.js';
import { https } from '../integration/standalone/https.js';

export const USERID = 'LINUX01';
export const USERID_2 = 'LINUX02';
export const VSWITCH = 'VSW1';
export const IMAGE = 'rhel8.6-s390x-dasd';
export const TEMPLATE_ID = 'a83a3a8a-0d6e-11ee-9d1c-02553600000f';
export const TEMPLATE_ID_2 = 'c4f2b0de-0d6e-11ee-9d1c-02553600000f';
export const NIC_ID = '6e2ecc4f-14a2-4f33-9f12-5ac4a42f97e7';
export const ADMIN_TOKEN = 'replay-admin-token-0123456789abcdef';

type Power = 'on' | 'off' | 'paused';

export class ReplayWorld {
  private token?: string;

  constructor(
    readonly app: Standalone,
    readonly auth: 'token' | 'none',
    readonly imageDir: string,
    /** PEM file of the CA of a standalone serving HTTPS */
    readonly ca?: string,
  ) {}

  /** The helpers' `http()`, over HTTPS when the server serves it. */
  private http(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.ca ? https({ ca: this.ca }, this.app.restUrl, method, path, body, headers) : http(this.app.restUrl, method, path, body, headers);
  }

  get port(): number {
    return Number(new URL(this.app.restUrl).port);
  }

  private async headers(): Promise<Record<string, string>> {
    if (this.auth === 'none') return {};
    if (!this.token) {
      const res = await this.http('POST', '/token', undefined, { 'X-Admin-Token': ADMIN_TOKEN });
      this.token = res.headers.get('x-auth-token') ?? '';
    }
    return { 'X-Auth-Token': this.token };
  }

  /** One of our own calls; `okStatuses` are the answers that leave the world as wanted. */
  async call(method: string, path: string, body?: unknown, okStatuses: number[] = [200]): Promise<Envelope> {
    const res = await this.http(method, path, body, await this.headers());
    if (!okStatuses.includes(res.status)) throw new Error(`set-up ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  private async guestExists(userid: string): Promise<boolean> {
    const list = (await this.call('GET', '/guests')).output as string[];
    return list.includes(userid);
  }

  async guestAbsent(userid = USERID): Promise<void> {
    if (await this.guestExists(userid)) await this.call('DELETE', `/guests/${userid}`);
  }

  async guest(power: Power = 'off', userid = USERID): Promise<void> {
    if (!(await this.guestExists(userid))) {
      await this.call('POST', '/guests', { guest: { userid, vcpus: 2, memory: 2048, max_cpu: 32, max_mem: '64G', disk_list: [{ size: '3g', is_boot_disk: true }] } });
    }
    const state = (await this.call('GET', `/guests/${userid}/power_state_real`)).output;
    const paused = (await this.app.hosts.forHost('default')!.queryPowerState(userid)) === 'paused';
    const now: Power = paused ? 'paused' : (state as Power);
    if (now === power) return;
    if (now === 'paused') await this.call('POST', `/guests/${userid}/action`, { action: 'unpause' });
    if (power === 'off') return void (await this.call('POST', `/guests/${userid}/action`, { action: 'stop' }));
    if (now === 'off') await this.call('POST', `/guests/${userid}/action`, { action: 'start' });
    if (power === 'paused') await this.call('POST', `/guests/${userid}/action`, { action: 'pause' });
  }

  private async nics(): Promise<{ adapter_address: string; lan_name?: string }[]> {
    const out = (await this.call('GET', `/guests/${USERID}/adapters`, undefined, [200, 500])).output as { adapters?: { adapter_address: string; lan_name?: string }[] } | undefined;
    return out?.adapters ?? [];
  }

  async nicAbsent(vdev = '1000'): Promise<void> {
    if ((await this.nics()).some((n) => n.adapter_address === vdev)) await this.call('DELETE', `/guests/${USERID}/nic/${vdev}`, {});
  }

  async nic(coupled = false, vdev = '1000'): Promise<void> {
    if (!(await this.nics()).some((n) => n.adapter_address === vdev)) await this.call('POST', `/guests/${USERID}/nic`, { nic: { vdev, nic_id: NIC_ID, mac_addr: '02:55:36:00:00:10' } });
    if (coupled) {
      await this.vswitch();
      await this.call('PUT', `/guests/${USERID}/nic/${vdev}`, { info: { couple: true, vswitch: VSWITCH } });
    }
  }

  async vswitchAbsent(): Promise<void> {
    await this.call('DELETE', `/vswitches/${VSWITCH}`, undefined, [200]);
  }

  /** VSW1 VLAN-aware (vid 100), so that user VLAN ids can be set on it. */
  async vswitch(): Promise<void> {
    const list = (await this.call('GET', '/vswitches')).output as string[];
    if (!list.includes(VSWITCH)) await this.call('POST', '/vswitches', { vswitch: { name: VSWITCH, vid: 100, port_type: 'TRUNK' } });
  }

  async imageAbsent(name = IMAGE): Promise<void> {
    await this.call('DELETE', `/images/${name}`);
  }

  /** rhel8.6-s390x-dasd imported from a file in the allowed directory (the captured URL names a path of the client's host). */
  async image(): Promise<void> {
    const found = await this.http('GET', `/images?imagename=${IMAGE}`, undefined, await this.headers());
    if (found.status === 200) return;
    const data = imageFile();
    const path = join(this.imageDir, 'rhel86.img');
    mkdirSync(this.imageDir, { recursive: true });
    writeFileSync(path, data);
    const md5sum = createHash('md5').update(data).digest('hex');
    await this.call('POST', '/images', { image: { image_name: IMAGE, url: `file://${path}`, image_meta: { os_version: 'rhel8.6', md5sum, disk_type: 'DASD' } } });
  }

  async templates(): Promise<void> {
    for (const [id, name, fcpDevices, hostDefault] of [[TEMPLATE_ID, 'tmpl-a', '1a00-1a07;1b00-1b07', true], [TEMPLATE_ID_2, 'tmpl-b', '1a10-1a17;1b10-1b17', false]] as const) {
      const existing = await this.app.store.get<ZFcpTemplate>('ZFcpTemplate', { name: id });
      if (existing) {
        // a captured create/edit with host_default: true moves the default away from the first template
        if (hostDefault && !existing.spec.hostDefault) await this.call('PUT', `/volumes/fcptemplates/${id}`, { host_default: true });
        continue;
      }
      const t: ZFcpTemplate = {
        apiVersion: API_VERSION, kind: 'ZFcpTemplate', metadata: { name: id },
        spec: { name, description: '', fcpDevices, hostDefault, storageProviders: ['v7k60'], host: 'default' },
      };
      await this.app.store.create(t);
      // hostDefault: true is the captured client's default template (get_volume_connector without an id)
      await this.until(async () => ((await this.app.store.get<ZFcpTemplate>('ZFcpTemplate', { name: id }))?.status?.observedGeneration ?? 0) >= 1, `template ${id} observed`);
    }
  }

  async templateAbsent(name: string): Promise<void> {
    const list = ((await this.call('GET', '/volumes/fcptemplates')).output as { fcp_templates: { id: string; name: string }[] }).fcp_templates;
    for (const t of list.filter((x) => x.name === name)) await this.call('DELETE', `/volumes/fcptemplates/${t.id}`);
  }

  /** The captured volume_attach connection attached (true) or detached (false). */
  async volume(attached: boolean): Promise<void> {
    const connection = {
      assigner_id: USERID, zvm_fcp: ['1a00', '1b00'], target_wwpn: ['0x5005076802100c1b', '0x5005076802200c1b'], target_lun: '0x0001000000000000',
      os_version: 'rhel8.6', multipath: true, mount_point: '/dev/sdb',
    };
    // set-up only: "already attached" / "not attached" leave the wanted state too
    await this.call(attached ? 'POST' : 'DELETE', '/guests/volumes', { info: { connection } }, [200, 409, 500]);
  }

  /** Frees the FCPs the earlier captures allocated from the first template (no connections, not reserved). */
  async releaseFcps(): Promise<void> {
    for (const fcp of ['1a00', '1b00']) {
      await this.call('PUT', `/volumes/fcp/${fcp}`, { info: { userid: '', reserved: 0, connections: 0, fcp_template_id: TEMPLATE_ID } });
    }
  }

  async until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`set-up: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** A small ECKD disk image with the header our importer reads. */
function imageFile(): Buffer {
  return Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), Buffer.alloc(100_000, 5)]);
}
