import { atRestart, fixed, live, type LifecycleTable } from './lifecycle.js';

const LOGON = 'CP reads this directory statement when the guest logs on';

/**
 * ZGuest: what a change does to a guest that exists (docs/fields.md). Directory statements that CP reads
 * only at logon are written at once with one locked rewrite of the entry (Image_Lock_DM, Image_Query_DM,
 * Image_Replace_DM, as feilong's resize does) and wait for the next logon; what CP or the operator can
 * change on the running guest is live.
 */
export const ZGUEST_FIELDS: LifecycleTable = {
  userid: fixed('the z/VM userid is the guest: another one would be another guest, and the old one would stay behind'),
  host: fixed('the guest lives on one host; moving it is a ZGuestAction (LiveMigrate)'),
  class: live('the guest takes the class values for the fields it leaves out; each then changes as its own field does'),
  classRevision: live('takes the class revision named; each field it changes then follows its own lifecycle'),
  vcpus: live('more CPUs are defined on the running guest (CP DEFINE CPU) and in the directory; fewer wait for the next logon (RestartRequired)'),
  maxCpus: atRestart(`MACHINE ESA n: ${LOGON}`),
  memory: atRestart('USER statement storage: z/VM gives a guest its storage at logon'),
  maxMemory: atRestart(`USER statement maximum storage: ${LOGON}`),
  profile: atRestart(`INCLUDE statement: ${LOGON}`),
  account: atRestart(`ACCOUNT statement: ${LOGON}`),
  comments: live('directory comments: written at once, nothing running reads them'),
  ipl: atRestart(`IPL statement: ${LOGON}`, true),
  loaddev: atRestart(`LOADDEV statements: ${LOGON} (SCSI IPL)`, true),
  dedicate: atRestart(`DEDICATE statements: ${LOGON}`),
  cpuPool: atRestart(`COMMAND SCHEDULE * WITHIN POOL: ${LOGON}`),
  share: atRestart(`SHARE statement: ${LOGON}`),
  relocationDomain: atRestart(`COMMAND SET VMRELOCATE * DOMAIN: ${LOGON}`),
  pciFunctions: atRestart(`COMMAND ATTACH PCIF: ${LOGON}`),
  disks: atRestart('MDISK statements: a new minidisk is defined at once (Image_Disk_Create_DM) and linked at the next logon; one left out is removed while the guest is off'),
  'disks[].vdev': atRestart('a disk is its device number: another vdev is another disk'),
  'disks[].size': fixed('a minidisk keeps the extent it was allocated; refused by the reconcile (Synced=False), as a list item has no identity at admission'),
  'disks[].format': fixed('a disk is formatted once, when it is created; refused by the reconcile (Synced=False)'),
  'disks[].pool': fixed('a minidisk stays in the pool it was allocated from; refused by the reconcile (Synced=False)'),
  'disks[].boot': fixed('the root disk is chosen when the guest is created; refused by the reconcile (Synced=False)'),
  diskConfig: live('recorded in status.configuredDisks at once (an in-guest agent acts on it)', true),
  image: live('deployed onto the root disk; a new image waits until the guest is stopped (DeployRequiresStop)'),
  imageDeploy: live('read by the deploy of spec.image (the next one, when only this changes)', true),
  nics: atRestart('NICDEF statements: a running guest sees a new, changed or removed NIC at its next logon'),
  'nics[].vdev': atRestart('a NIC is its device number: another vdev is another NIC (NICDEF)'),
  'nics[].mac': atRestart('NICDEF MACID: the NIC is defined again with the new MAC; the guest sees it at its next logon'),
  'nics[].vswitch': atRestart('NICDEF LAN SYSTEM: coupled in the directory (Virtual_Network_Adapter_Connect_Vswitch_DM), seen at the next logon'),
  'nics[].vlan': live('recorded in status.nics; the VLAN itself is the vswitch grant (ZVswitch authorizedUsers)'),
  'nics[].nicId': live('recorded in status.nics'),
  network: live('recorded in status.network at once (an in-guest agent writes the files)', true),
  powerState: live('the guest is started, stopped, paused or unpaused'),
  resizePolicy: live('read by every resize that follows'),
  deletionPolicy: live('read when the resource is deleted'),
  adopt: live('ownership is decided at every reconcile: set it to take over the existing guest of this userid'),
};
