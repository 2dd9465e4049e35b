// A hostile box writes VS Code link syntax wherever its text reaches a notification: its login
// shell's stderr (Check GPU fails), its training log (the end-of-run "last lines") and its
// checkpoint file names (a sync that keeps a local edit).
// Each path is taken as a user takes it (a tree node as the argument, so the command shows its
// notifications); the e2e driver then opens every notification, checks that none holds a link
// and clicks whatever anchors there are, and checks that nothing ran (no terminal, no sentinel).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { HOSTILE_LINKS, HOSTILE_SENTINEL } from '../../e2e/shared';
import { exec, log, readInfo, waitFor } from '../support';

interface State {
  instances: { id: string; sync?: { lastSyncAt?: number } }[];
  guardNotices: { kind: string; instanceId: string; detail: string }[];
}
const state = () => exec<State>('gpuRent.getState');
const LINK = HOSTILE_LINKS[0];
const SHORT = HOSTILE_LINKS[1];

describe('a box whose text carries command: links (loopback sshd)', function () {
  this.timeout(120_000);
  const { sshd } = readInfo();
  const login = `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`;
  const profile = path.join(sshd.home, '.profile');
  const work = path.posix.join(sshd.home, 'hostile-links');
  let savedProfile = '';
  let id = '';
  const node = () => ({ kind: 'instance', id });

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    savedProfile = fs.readFileSync(profile, 'utf8');
    id = await exec<string>('gpuRent.addInstance', { name: 'hostile links box', login, password: sshd.password, platform: 'autodl', card: 'RTX 4090', hourlyRate: 2, dataDiskGb: 10, state: 'running' });
    await exec('gpuRent.checkGpu', { id, acceptNewHostKey: true, quiet: true });
    fs.mkdirSync(path.join(work, 'ckpt'), { recursive: true });
    chownTree(work, sshd.home);
  });

  after(() => {
    fs.writeFileSync(profile, savedProfile);
  });

  it('Check GPU on a box whose login shell prints a link on stderr and fails', async () => {
    fs.writeFileSync(profile, `${savedProfile}\necho ${shq(`motd: ${LINK}`)} >&2\nexit 7\n`);
    // As a click in the tree: the failure becomes an error notification quoting the stderr.
    await vscode.commands.executeCommand('gpuRent.checkGpu', node());
    fs.writeFileSync(profile, savedProfile);
  });

  it('a run whose last log lines carry links: the end-of-run notification quotes them', async () => {
    const script = [`printf '%s\\n' ${shq(LINK)} ${shq(`step 3 ${SHORT}`)}`, 'exit 3'].join('; ');
    const job = await exec<string>('gpuRent.startTraining', { id, command: script, cwd: work });
    log(`started ${job}`);
    await waitFor(
      'the poll to see the end',
      async () => {
        await exec('gpuRent.refresh');
        return (await state()).guardNotices.find((n) => n.kind === 'job' && n.instanceId === id && n.detail.startsWith(`${job} exited 3`));
      },
      60_000,
      1000,
    );
  });

  it('checkpoint file names with links: a sync that keeps a local edit names them', async () => {
    const local = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-links-'));
    await exec('gpuRent.editInstance', { id, syncRemoteDir: `${work}/ckpt`, syncLocalDir: local });
    const name = `${SHORT}.md`;
    const hourAgo = (h: number) => new Date(Date.now() - h * 3600_000);
    fs.writeFileSync(path.join(work, 'ckpt', name), 'from the box, first\n');
    fs.utimesSync(path.join(work, 'ckpt', name), hourAgo(2), hourAgo(2));
    chownTree(work, sshd.home);
    await exec('gpuRent.syncCheckpoints', { id });
    assert.equal(fs.readFileSync(path.join(local, name), 'utf8'), 'from the box, first\n', 'the first sync pulled the file');
    fs.writeFileSync(path.join(local, name), 'edited here after the sync\n');
    fs.writeFileSync(path.join(work, 'ckpt', name), 'from the box, second\n');
    // A settled file (sync leaves one changed in the last seconds for the next pass).
    fs.utimesSync(path.join(work, 'ckpt', name), hourAgo(1), hourAgo(1));
    await vscode.commands.executeCommand('gpuRent.syncCheckpoints', node());
    assert.equal(fs.readFileSync(path.join(local, name), 'utf8'), 'edited here after the sync\n', 'the local edit is kept');
    assert.ok(!fs.existsSync(HOSTILE_SENTINEL));
  });
});

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function chownTree(dir: string, home: string): void {
  const { uid, gid } = fs.statSync(home);
  const walk = (p: string) => {
    fs.chownSync(p, uid, gid);
    if (fs.statSync(p).isDirectory()) for (const f of fs.readdirSync(p)) walk(path.join(p, f));
  };
  walk(dir);
}
