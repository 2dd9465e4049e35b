// What the in-host suites (test/vscode) need around them, whichever VS Code runs them
// (code-server in scripts/e2e.sh + test/e2e/run.ts, desktop VS Code in test/vscode/run-electron.ts):
// the suites bundled for the extension host, a temp workspace and user-data dir with quiet
// settings, the real loopback sshd with a real nvidia-smi capture, and the info file the suites
// read (test/vscode/support.ts readInfo). Everything made here is undone by the cleanups it registers.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HostInfo } from '../vscode/support';
import type { TestSshd } from '../support/sshd';

export const ROOT = path.resolve(__dirname, '..', '..');
/** What the fake nvidia-smi on the loopback box prints (the suites expect this RTX 4090). */
export const NVIDIA_SMI_FIXTURE = 'rtx4090_driver535.86.05_q.xml';

/** The user settings of the test profile: no trust prompt, no welcome, no updates, no telemetry. */
export const TEST_USER_SETTINGS: Record<string, unknown> = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'window.commandCenter': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
};

export type Cleanup = () => Promise<void> | void;

export interface HostEnv {
  tmp: string;
  /** The folder VS Code opens; holds .e2e-info.json. */
  ws: string;
  userDataDir: string;
  extDir: string;
  localSyncDir: string;
  sshd: TestSshd;
  info: HostInfo;
  /** ws/.e2e-info.json; also handed to the extension host as GPU_RENT_E2E_INFO. */
  infoPath: string;
}

export interface HostEnvOptions {
  /** mkdtemp prefix under the OS temp dir. */
  tmpPrefix: string;
  /** Where the suites write their spec-like lines. */
  logPath: string;
  /** Mocha grep for the suites. */
  grep?: string;
  /** Keep the temp folder (workspace, user data) after the run. */
  keepTmp?: boolean;
  /** Undo steps are pushed here as they are made; the caller runs them in reverse. */
  cleanups: Cleanup[];
  say?: (line: string) => void;
}

/** The temp workspace, user-data dir (with TEST_USER_SETTINGS), the loopback sshd and the info file. */
export async function prepareHostEnv(o: HostEnvOptions): Promise<HostEnv> {
  const say = o.say ?? ((s: string) => process.stdout.write(s + '\n'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), o.tmpPrefix));
  o.cleanups.push(() => { if (!o.keepTmp) fs.rmSync(tmp, { recursive: true, force: true }); else say(`(kept ${tmp})`); });
  const ws = path.join(tmp, 'workspace'), userDataDir = path.join(tmp, 'user-data'), extDir = path.join(tmp, 'extensions');
  const localSyncDir = path.join(tmp, 'synced');
  for (const d of [ws, path.join(userDataDir, 'User'), extDir, localSyncDir]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(TEST_USER_SETTINGS, null, 2));

  // The real sshd on loopback, from the shared harness (imported here so that a missing
  // sshd or a non-root user is reported as this step's error).
  const { startSshd } = await import('../support/sshd');
  const sshd = await startSshd();
  o.cleanups.push(() => sshd.stop());
  sshd.setNvidiaSmi(NVIDIA_SMI_FIXTURE);
  say(`sshd on ${sshd.host}:${sshd.port} (user ${sshd.user}), nvidia-smi prints ${NVIDIA_SMI_FIXTURE}`);

  fs.mkdirSync(path.dirname(o.logPath), { recursive: true });
  const info: HostInfo = {
    sshd: { host: sshd.host, port: sshd.port, user: sshd.user, password: sshd.password, privateKeyPath: sshd.privateKeyPath, home: sshd.home },
    userDataDir, resultsPath: path.join(tmp, 'host-results.json'), logPath: o.logPath, localSyncDir,
    ...(o.grep ? { grep: o.grep } : {}),
  };
  const infoPath = path.join(ws, '.e2e-info.json');
  fs.writeFileSync(infoPath, JSON.stringify(info, null, 2));
  return { tmp, ws, userDataDir, extDir, localSyncDir, sshd, info, infoPath };
}

/** Copies the suites' log to stdout as it grows; the returned function stops and prints the rest. */
export function followLog(logPath: string, out: (s: string) => void = (s) => process.stdout.write(s)): () => void {
  let shown = 0;
  const flush = (): void => {
    if (!fs.existsSync(logPath)) return;
    const text = fs.readFileSync(logPath, 'utf8');
    if (text.length > shown) { out(text.slice(shown)); shown = text.length; }
  };
  const timer = setInterval(flush, 300);
  return () => { clearInterval(timer); flush(); };
}
