/** The Event and condition reason of a step the hypervisor refused (its rc/rs in the message), in every kind. */
export const HYPERVISOR_ERROR = 'HypervisorError';
