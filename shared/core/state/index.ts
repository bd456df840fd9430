/** State: where a stack's deployment lives, and reading the current one (a running update's latest save included). */
export * from './stack-state.js';
