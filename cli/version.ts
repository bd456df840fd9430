/** The CLI's version, set by the bundler (`dev` when run from source). */
declare const __STACKYARD_VERSION__: string | undefined;

export const STACKYARD_VERSION = typeof __STACKYARD_VERSION__ === 'string' ? __STACKYARD_VERSION__ : 'dev';
