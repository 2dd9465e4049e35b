// Checkpoint sync: the engine the CLI (`gpu-rent sync`) and the extension drive.
export { syncOnce, watchSync, SyncError, type SyncRemote, type SyncOptions, type SyncReport, type SyncProgress, type SyncErrorCode, type WatchOptions, type WatchEvent } from './engine';
export { type Skip } from './list';
export { checkComponent, checkRelativePath, PART_SUFFIX, STATE_FILE, type SkipReason } from './names';
