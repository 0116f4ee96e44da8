/** The reference's volume-module results (docs/rest-interface.md §2.1, modID 30). */
import { FeilongError, ModID } from '../feilong-error.js';

const MOD = ModID.volume;

const notExist = (errmsg: string) => new FeilongError('NOT_FOUND', { overallRC: 404, modID: MOD, rc: 404, rs: 1, errmsg });
const conflict = (rs: number, errmsg: string) => new FeilongError('CONFLICT', { overallRC: 409, modID: MOD, rc: 409, rs, errmsg });
const failed = (rs: number, errmsg: string) => new FeilongError('INTERNAL', { overallRC: 300, modID: MOD, rc: 300, rs, errmsg });

export const volumeErrors = {
  templateNotFound: (id: string) => notExist(`FCP Multipath Template ${id} does not exist.`),
  fcpNotFound: (fcp: string) => notExist(`FCP '${fcp}' does not exist.`),
  deleteTemplate: (msg: string) => conflict(22, `Failed to delete FCP Multipath Template, error: ${msg}`),
  saveTemplate: (msg: string) => conflict(23, `Failed to create or update FCP Multipath Template, error: ${msg}`),
  editTemplate: (msg: string) => conflict(24, `Failed to edit FCP Multipath Template, error: ${msg}`),
  alreadyAttached: (lun: string, userid: string) => failed(3, `Volume ${lun} has already been attached on instance ${userid}`),
  notAttached: (lun: string, userid: string) => failed(4, `Volume ${lun} is not attached on instance ${userid}`),
  refreshBootmap: (code: number, msg: string) => failed(5, `Refresh bootmap fails, error code: ${code} and reason: ${msg}`),
  connector: (userid: string, msg: string) => failed(11, `Failed to get volume connector of ${userid}: ${msg}`),
};
