/**
 * Parameter and output shapes of the device (dedicate) and FCP inventory functions (see
 * functions.ts for the naming rules).
 */

/** Image_Device_Dedicate(_DM): `str image_device_number`, `str real_device_number`, `int1 readonly` (0/1). */
export type DeviceDedicateParams = { image_device_number: string; real_device_number: string; readonly: number };

/** Image_Device_Undedicate(_DM): `str image_device_number`. */
export type DeviceUndedicateParams = { image_device_number: string };

/** System_WWPN_Query: plain `kvlist` `owner=YES|NO` (feilong sends ` OWNER=YES`). */
export type WwpnQueryParams = { owner?: string };

/**
 * One FCP of System_WWPN_Query: a NUL-terminated line of six blank-separated fields.
 * dev_status is one character: 1 active, 2 free, 3 offline; owner is a userid or NONE.
 */
export type WwpnInfo = {
  fcp_dev_id: string;
  npiv_wwpn: string;
  chpid: string;
  perm_wwpn: string;
  dev_status: string;
  owner: string;
};

export type WwpnQueryOutput = { wwpn_array?: WwpnInfo[] };
