/** Event (and condition) reasons of ZVolume. */
export const VolumeReasons = {
  attached: 'Attached',
  attachFailed: 'AttachFailed',
  detachFailed: 'DetachFailed',
} as const;
