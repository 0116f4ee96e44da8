/**
 * The hypervisor calls the reference implementation (feilong + smtLayer + zthin) issues for each
 * operation, written down as data with a citation per entry. "SMAPI X" is a SMAPI function; "CP X"
 * is a CP command issued through vmcp (on the connector's own VM, or inside the guest over IUCV
 * where the command is itself a CP command); "zthin X", "vmur X" and "connector X" are other
 * commands the connector runs on its own VM (the management guest), each one call as the bench
 * counts each command of our mgmt adapter. Linux commands run inside the guest (lscpu, chcpu,
 * lsmem, chmem) and disk formatting on the connector are excluded on both sides: our operator does
 * neither. Sources: docs/rest-interface.md (FR) and docs/smapi.md (SM).
 */
export interface RefCall {
  call: string;
  count: number;
  cite: string;
}

export interface RefOperation {
  op: string;
  /** what the reference is asked to do (its REST calls) */
  request: string;
  calls: RefCall[];
  /** calls of parts our operator may not implement yet (NICs); compared only when we issue them */
  nicPart?: RefCall[];
  excluded?: string[];
}

const CHECK_GUEST_EXIST = 'FR §3.0 "Is it managed?": the check runs CP QUERY <userid> per id (applies to this API)';
const IS_LOGGED_ON = 'SM §2 intro: the _DM call always, the active call only when CP QUERY USER says the guest is logged on; SM §4.2 `query user` row (asked before every active-config call)';
/** FR §3 notation: "punch X" = `vmur punch -r <file>` → `vmcp change rdr <spoolid> class X` → `vmcp transfer * rdr <spoolid> to <USERID> rdr` (SM §4.2 punch row) */
function punch(why: string): RefCall[] {
  const cite = `${why}; FR §3 notation "punch X"`;
  return [
    { call: 'vmur punch -r', count: 1, cite },
    { call: 'CP CHANGE RDR', count: 1, cite },
    { call: 'CP TRANSFER RDR', count: 1, cite },
  ];
}

const POWER_CHECK = 'FR §3.6/§3.7 live resize: the guest must be on (else 409 rs 1); power comes from CP `query user` (FR §3.3 get_power_state, SM §2)';

export const REFERENCE: RefOperation[] = [
  {
    op: 'create',
    request: 'POST /guests (2 disks in disk_list), POST /guests/{id}/nic, PUT /guests/{id}/nic/{vdev} couple',
    calls: [
      { call: 'SMAPI Image_Create_DM', count: 1, cite: 'FR §3.1: the directory entry is created with SMAPI Image_Create_DM' },
      { call: 'CP QUERY USER', count: 2, cite: `one per disk before the active-config step: ${IS_LOGGED_ON}; FR §3.1 disks: a logged-on guest also gets SMAPI Image_Disk_Create` },
      { call: 'SMAPI Image_Disk_Create_DM', count: 2, cite: 'FR §3.1 disks: SMAPI Image_Disk_Create_DM per disk' },
      { call: 'SMAPI Name_List_Add', count: 1, cite: 'FR §3.1 last step: SMAPI Name_List_Add' },
    ],
    nicPart: [
      { call: 'CP QUERY <userid>', count: 1, cite: `${CHECK_GUEST_EXIST}: create_nic` },
      { call: 'SMAPI Virtual_Network_Adapter_Create_Extended_DM', count: 1, cite: 'FR §3.9 Create NIC' },
      { call: 'CP QUERY <userid>', count: 1, cite: `${CHECK_GUEST_EXIST}: nic couple` },
      { call: 'SMAPI Image_Query_DM', count: 1, cite: 'FR §3.9 Couple: reads the directory (SMAPI Image_Query_DM)' },
      { call: 'SMAPI Image_Lock_DM', count: 1, cite: 'FR §3.9 Couple: SMAPI Image_Lock_DM + Image_Replace_DM' },
      { call: 'SMAPI Image_Replace_DM', count: 1, cite: 'FR §3.9 Couple' },
    ],
    excluded: ['disk formatting on the connector (linkdiskandbringonline: CP LINK, dasdfmt, mkfs, CP DETACH; FR §3.1): our simulator path formats nothing'],
  },
  {
    op: 'deploy',
    request: 'POST /guests/{id}/action {"action":"deploy","image":...,"transportfiles":<config drive on the connector>} (no remotehost, no hostname)',
    calls: [
      { call: 'CP QUERY <userid>', count: 1, cite: `${CHECK_GUEST_EXIST}: deploy` },
      { call: 'connector hexdump -C -n 64 <image file>', count: 1, cite: 'FR §3.4 step 2: `hexdump -C -n 64` of the image file, for the log (a command on the connector reading the image, as md5sum)' },
      { call: 'zthin unpackdiskimage', count: 1, cite: 'FR §3.4 step 2: `unpackdiskimage <USERID> <vdev> <image file>`' },
      { call: 'connector cp <transportfiles>', count: 1, cite: 'FR §3.4 step 3: `transportfiles` copied to the connector (`scp` or `cp`)' },
      ...punch('FR §3.4 step 3: the config drive punched to the guest (class X)'),
      { call: 'CP QUERY USERID', count: 1, cite: 'FR §3.4 step 4: <client> is the connector\'s own userid (first word of CP `query userid`)' },
      ...punch('FR §3.4 step 4: the IUCV authorization script punched to the guest (class X)'),
    ],
    excluded: [
      'the image DB lookup (FR §3.4 step 1) and the guest DB metadata write (step 5): the connector\'s local SQLite, not the host',
      'writing /tmp/<userid>/iucvauth.sh (step 4): a local file the connector\'s own process writes',
      'what unpackdiskimage runs inside (CP QUERY VIRTUAL <alias>, CP LINK, CP DETACH, SM §4.2 `link`/`detach`/`query virtual` row): the same script on both sides, counted as one command on both',
    ],
  },
  {
    op: 'start',
    request: 'POST /guests/{id}/action {"action":"start"}',
    calls: [
      { call: 'CP QUERY <userid>', count: 1, cite: `${CHECK_GUEST_EXIST}: start` },
      { call: 'SMAPI Image_Activate', count: 1, cite: 'FR §3.3 start → SMAPI Image_Activate' },
    ],
  },
  {
    op: 'live resize',
    request: 'POST action live_resize_cpus (2→4) and live_resize_mem (2G→4G) on a running guest',
    calls: [
      { call: 'CP QUERY <userid>', count: 2, cite: `${CHECK_GUEST_EXIST}: live resize cpus and mem` },
      { call: 'CP QUERY USER', count: 2, cite: POWER_CHECK },
      { call: 'SMAPI Image_Query_DM', count: 2, cite: 'FR §3.6 static resize reads the directory; FR §3.7 parses its USER line' },
      { call: 'SMAPI Image_Definition_Update_DM', count: 1, cite: 'FR §3.6 adds missing CPUs with Image_Definition_Update_DM (with SHARE)' },
      { call: 'CP DEFINE CPU', count: 1, cite: 'FR §3.6 live: IUCV `vmcp def cpu XX YY` (one CP command for all new CPUs; SM §4.3)' },
      { call: 'SMAPI Image_Lock_DM', count: 1, cite: 'FR §3.7: SMAPI Image_Lock_DM' },
      { call: 'SMAPI Image_Replace_DM', count: 1, cite: 'FR §3.7: then SMAPI Image_Replace_DM' },
    ],
    excluded: ['in-guest Linux commands: lscpu ×2, chcpu -r, chcpu -e (FR §3.6), lsmem, chmem (FR §3.7)'],
  },
  {
    op: 'stop',
    request: 'POST /guests/{id}/action {"action":"stop"}',
    calls: [
      { call: 'CP QUERY <userid>', count: 1, cite: `${CHECK_GUEST_EXIST}: stop` },
      { call: 'SMAPI Image_Deactivate', count: 1, cite: 'FR §3.3 stop → SMAPI Image_Deactivate -f IMMED' },
    ],
  },
  {
    op: 'add disk',
    request: 'POST /guests/{id}/disks (one disk, guest logged off)',
    calls: [
      { call: 'CP QUERY <userid>', count: 1, cite: `${CHECK_GUEST_EXIST}: create_disks` },
      { call: 'SMAPI Image_Query_DM', count: 1, cite: 'FR §3.8: first vdev = highest existing MDISK vdev + 1; SM §2 Image_Query_DM row (disk vdev allocation)' },
      { call: 'CP QUERY USER', count: 1, cite: IS_LOGGED_ON },
      { call: 'SMAPI Image_Disk_Create_DM', count: 1, cite: 'FR §3.8: the Image_Disk_Create_DM flow of §3.1' },
    ],
    excluded: ['disk formatting on the connector (FR §3.1)'],
  },
  {
    op: 'delete',
    request: 'DELETE /guests/{id} (guest logged off)',
    calls: [
      { call: 'CP QUERY USER', count: 1, cite: 'FR §3.2 step 2: CP QUERY USER, and Image_Deactivate if logged on' },
      { call: 'SMAPI System_RDR_File_Manage', count: 1, cite: 'FR §3.2 step 2: purge the reader' },
      { call: 'SMAPI Image_Delete_DM', count: 1, cite: 'FR §3.2 step 2' },
      { call: 'SMAPI Name_List_Remove', count: 1, cite: 'FR §3.2 step 3' },
    ],
    nicPart: [{ call: 'SMAPI Virtual_Network_Vswitch_Set_Extended', count: 1, cite: 'FR §3.2 step 4 revoke per vswitch recorded for the userid' }],
  },
];

export function countOf(calls: RefCall[]): number {
  return calls.reduce((n, c) => n + c.count, 0);
}
