// Every command the extension registers. The manifest test checks that this equals
// package.json's contributes.commands, so a command cannot be declared and forgotten.
export const Commands = {
  addInstance: 'gpuRent.addInstance',
  editInstance: 'gpuRent.editInstance',
  removeInstance: 'gpuRent.removeInstance',
  updateLogin: 'gpuRent.updateLogin',
  importInstances: 'gpuRent.importInstances',
  exportInstances: 'gpuRent.exportInstances',
  switchState: 'gpuRent.switchState',
  releaseInstance: 'gpuRent.releaseInstance',
  checkGpu: 'gpuRent.checkGpu',
  startTraining: 'gpuRent.startTraining',
  startDistributedTraining: 'gpuRent.startDistributedTraining',
  showGpuMonitor: 'gpuRent.showGpuMonitor',
  showJobs: 'gpuRent.showJobs',
  syncCheckpoints: 'gpuRent.syncCheckpoints',
  uploadFolder: 'gpuRent.uploadFolder',
  watchCheckpoints: 'gpuRent.watchCheckpoints',
  stopWatching: 'gpuRent.stopWatching',
  editSyncFolders: 'gpuRent.editSyncFolders',
  openTerminal: 'gpuRent.openTerminal',
  openInRemoteSsh: 'gpuRent.openInRemoteSsh',
  openTensorBoard: 'gpuRent.openTensorBoard',
  openJupyter: 'gpuRent.openJupyter',
  forwardPort: 'gpuRent.forwardPort',
  openCalculator: 'gpuRent.openCalculator',
  refresh: 'gpuRent.refresh',
  showLog: 'gpuRent.showLog',
  getState: 'gpuRent.getState',
  uploadToMemory: 'gpuRent.uploadToMemory',
  wipeMemoryUpload: 'gpuRent.wipeMemoryUpload',
  scanSecrets: 'gpuRent.scanSecrets',
  captureEnvironment: 'gpuRent.captureEnvironment',
  rebuildEnvironment: 'gpuRent.rebuildEnvironment',
  installWatchdog: 'gpuRent.installWatchdog',
  watchdogStatus: 'gpuRent.watchdogStatus',
  removeWatchdog: 'gpuRent.removeWatchdog',
  addPlatformAccount: 'gpuRent.addPlatformAccount',
  removePlatformAccount: 'gpuRent.removePlatformAccount',
  addNotifyChannel: 'gpuRent.addNotifyChannel',
  removeNotifyChannel: 'gpuRent.removeNotifyChannel',
  addStorage: 'gpuRent.addStorage',
  removeStorage: 'gpuRent.removeStorage',
  refreshPlatforms: 'gpuRent.refreshPlatforms',
  reviewPlatformLogin: 'gpuRent.reviewPlatformLogin',
  keepAliveOnPlatform: 'gpuRent.keepAliveOnPlatform',
  powerOnWhenFree: 'gpuRent.powerOnWhenFree',
  powerOn: 'gpuRent.powerOn',
  powerOff: 'gpuRent.powerOff',
  releaseOnPlatform: 'gpuRent.releaseOnPlatform',
  createInstance: 'gpuRent.createInstance',
  cloneInstance: 'gpuRent.cloneInstance',
  runTask: 'gpuRent.runTask',
  launchStatus: 'gpuRent.launchStatus',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];

export const INSTANCES_VIEW_ID = 'gpuRent.instances';
export const CALCULATOR_VIEW_TYPE = 'gpuRent.calculator';
export const STATUS_BAR_ID = 'gpuRent.spend';
/** Context key: true when at least one instance is stored. */
export const HAS_INSTANCES_KEY = 'gpuRent.hasInstances';
