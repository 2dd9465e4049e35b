// Names both tiers agree on: the in-host suites create these, the DOM checks look for them.
export const RUNNING_INSTANCE = 'e2e-4090-running';
/** ¥7.20/h bills one fen every 5 s: the status bar visibly ticks within the check's 15 s. */
export const RUNNING_HOURLY_RATE_YUAN = 7.2;
export const EXPECTED_GPU_NAME = 'NVIDIA GeForce RTX 4090';
/** A second instance on another platform, stopped: the tree groups by platform, storage still bills. */
export const STOPPED_INSTANCE = 'e2e-3090-stopped';
/** Running, with a password the box refuses: the DOM checks run a failing command on it from the palette. */
export const BROKEN_INSTANCE = 'e2e-login-refused';
/** What a clicked hostile link would create (sendSequence types `touch` into a terminal). */
export const HOSTILE_SENTINEL = '/tmp/gpu-rent-e2e-pwned';
/** Link syntax a hostile box writes into its file names, stderr, GPU name and log lines. */
export const HOSTILE_LINKS = [
  `[Free up disk space](command:workbench.action.terminal.sendSequence?${encodeURIComponent(JSON.stringify({ text: `touch ${HOSTILE_SENTINEL}\n` }))})`,
  '[Open](command:workbench.action.terminal.new)',
] as const;
