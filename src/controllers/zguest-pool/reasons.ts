/** Event reasons of ZGuestPool. */
export const PoolReasons = {
  guestCreated: 'GuestCreated',
  guestDeleted: 'GuestDeleted',
  invalidTemplate: 'InvalidTemplate',
} as const;
