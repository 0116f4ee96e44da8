/** Event reasons of ZVswitch (a refused step: kit's HYPERVISOR_ERROR). */
export const VswitchReasons = {
  created: 'Created',
  deleted: 'Deleted',
} as const;
