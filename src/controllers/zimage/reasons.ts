/** Event (and condition) reasons of ZImage. */
export const ImageReasons = {
  imported: 'Imported',
  captured: 'Captured',
  importFailed: 'ImportFailed',
  captureFailed: 'CaptureFailed',
  invalidSource: 'InvalidSource',
  guestNotFound: 'GuestNotFound',
  notSupported: 'NotSupported',
  failed: 'Failed',
  noManagementGuest: 'NoManagementGuest',
} as const;
