// Checkpoint sync: the engine the CLI (`gpu-rent sync`) and the extension drive.
export { syncOnce, SyncError, type SyncRemote, type SyncOptions, type SyncReport, type SyncProgress, type SyncErrorCode } from './engine';
export { watchSync, type WatchOptions, type WatchEvent } from './watch';
export { type Skip } from './list';
export { checkComponent, checkRelativePath, PART_SUFFIX, STATE_FILE, type SkipReason } from './names';
