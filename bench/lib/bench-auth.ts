/** The bench host's SMAPI credentials, in a file of their own: a measured process imports them without the simulator. */
export const BENCH_AUTH = { userid: 'MAINT', password: 'bench' };
