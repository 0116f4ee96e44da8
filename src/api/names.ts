/**
 * Name patterns shared by the API schemas, REST validation and the hypervisor package, which turns image
 * names and OS versions into folder names of the image repository (`netboot/<os version>/<image name>`).
 * Patterns are strings: the CRDs carry them, so they stay within what Kubernetes' regexp accepts.
 */

/** Image names: letters, digits, '.', '_', '-'; no leading dot; no '..' (isSafeImageName). */
export const IMAGE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';
const IMAGE_NAME = new RegExp(IMAGE_NAME_PATTERN);

export function isSafeImageName(name: string): boolean {
  return IMAGE_NAME.test(name) && !name.includes('..');
}

/** feilong's remotehost format: user@ipv4 or user@host.domain (docs/rest-interface.md §1.5). */
export const REMOTE_HOST_PATTERN = '^[a-zA-Z0-9\\-]+@([0-9]{1,3}(\\.[0-9]{1,3}){3}$|[a-zA-Z0-9\\-]+(\\.[a-zA-Z0-9\\-]+){1,}$)';

/** OS versions of images and guests (rhel8.6, sles15sp4, or any distro): one safe folder name, any case. */
export const OS_VERSION_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$';
const OS_VERSION = new RegExp(OS_VERSION_PATTERN);

export function isSafeOsVersion(os: string): boolean {
  return OS_VERSION.test(os) && !os.includes('..');
}

/**
 * The `os_version` values feilong's REST API accepts (docs/rest-interface.md §1.5; the reference's
 * zvmsdk/sdkwsgi/validation/parameter_types.py `os_version`): rhel, redhat, sles, suse, ubuntu and rhcos
 * releases, letters in any case. Every REST body with an `os_version` uses it.
 */
export const FEILONG_OS_VERSION_PATTERN =
  '^([rR][hH][eE][lL](6|7|8|9|10)(\\.\\d{1,2})?|[rR][eE][dD][hH][aA][tT](6|7)(\\.\\d{1,2})?|[sS][lL][eE][sS](11|12|15)((\\.|[sS][pP])\\d)?|[sS][uU][sS][eE](11|12|15)((\\.|[sS][pP])\\d)?|[uU][bB][uU][nN][tT][uU](16|20|22|24|25)(\\.\\d\\d)?(\\.\\d)?|[rR][hH][cC][oO][sS]4(\\.\\d{1,2})?(\\.\\d{1,2})?)$';
