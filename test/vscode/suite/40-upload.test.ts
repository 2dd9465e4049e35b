// Upload Folder to Instance… in a real VS Code against the loopback sshd: the folder lands on
// the box verified (no .part left, local mtimes kept), a second upload sends nothing, a
// likely secret stops it before anything is sent (unless allowed), a newer file on the box
// is kept, and bad arguments are refused with the field's name.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { exec, fails, log, readInfo } from '../support';

interface Pushed {
  kind: 'pushed';
  files: number;
  bytes: number;
  seconds: number;
  bytesPerSecond: number;
  unchanged: number;
  skipped: Array<{ name: string; reason: string }>;
  interrupted: boolean;
}
type Result = Pushed | { kind: 'secrets-found'; findings: Array<{ path: string; kind: string }> };

describe('upload a folder to the instance, on the loopback sshd', function () {
  this.timeout(120_000);
  const { sshd } = readInfo();
  const login = `ssh -p ${sshd.port} ${sshd.user}@${sshd.host}`;
  const box = path.posix.join(sshd.home, 'upload-e2e');
  const OLD = Math.floor(Date.now() / 1000) - 3600;
  let id = '';
  let local = '';

  before(async () => {
    await vscode.extensions.getExtension('gpu-rent.gpu-rent')!.activate();
    id = await exec<string>('gpuRent.addInstance', { name: 'upload box', login, password: sshd.password, platform: 'autodl', card: 'RTX 4090', hourlyRate: 2, dataDiskGb: 10, state: 'running' });
    await exec('gpuRent.checkGpu', { id, acceptNewHostKey: true, quiet: true });
  });
  beforeEach(() => {
    local = fs.mkdtempSync(path.join(os.tmpdir(), 'gr-upload-'));
    fs.rmSync(box, { recursive: true, force: true });
  });
  afterEach(() => {
    fs.rmSync(local, { recursive: true, force: true });
    fs.rmSync(box, { recursive: true, force: true });
  });
  const put = (rel: string, content: string | Buffer, mtime = OLD) => {
    const p = path.join(local, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
    fs.utimesSync(p, mtime, mtime);
  };

  it('uploads the folder verified; a second upload sends nothing', async () => {
    put('train.py', 'print("hi")\n');
    put('data/shard-0.bin', Buffer.alloc(300_000, 7));
    put('data/shard-1.bin', Buffer.alloc(5 * 1024 * 1024, 9));
    const r = await exec<Result>('gpuRent.uploadFolder', { id, localDir: local, remoteDir: box });
    log(`upload: ${JSON.stringify(r)}`);
    assert.equal(r.kind, 'pushed');
    const p = r as Pushed;
    assert.equal(p.files, 3);
    assert.equal(p.bytes, 12 + 300_000 + 5 * 1024 * 1024);
    assert.ok(p.bytesPerSecond > 0);
    assert.ok(fs.readFileSync(path.join(box, 'data/shard-1.bin')).equals(Buffer.alloc(5 * 1024 * 1024, 9)));
    assert.equal(Math.floor(fs.statSync(path.join(box, 'train.py')).mtimeMs / 1000), OLD);
    assert.ok(!fs.readdirSync(path.join(box, 'data')).some((n) => n.endsWith('.part')));
    const again = await exec<Pushed>('gpuRent.uploadFolder', { id, localDir: local, remoteDir: box });
    assert.deepEqual([again.files, again.bytes, again.unchanged], [0, 0, 3]);
  });

  it('a likely secret stops the upload before anything is sent; allowSecrets sends it', async () => {
    put('train.py', 'print(1)\n');
    put('.env', 'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF12\n');
    const r = await exec<Result>('gpuRent.uploadFolder', { id, localDir: local, remoteDir: box });
    assert.equal(r.kind, 'secrets-found');
    assert.ok((r as { findings: Array<{ path: string }> }).findings.some((f) => f.path.endsWith('.env')));
    assert.ok(!fs.existsSync(box), 'nothing on the box');
    const ok = await exec<Pushed>('gpuRent.uploadFolder', { id, localDir: local, remoteDir: box, allowSecrets: true });
    assert.equal(ok.files, 2);
  });

  it('keeps a newer file on the box unless forced; bad arguments name the field', async () => {
    put('notes.txt', 'local');
    fs.mkdirSync(box, { recursive: true });
    fs.writeFileSync(path.join(box, 'notes.txt'), 'box, newer');
    fs.utimesSync(path.join(box, 'notes.txt'), OLD + 100, OLD + 100);
    const st = fs.statSync(sshd.home);
    fs.chownSync(box, st.uid, st.gid);
    fs.chownSync(path.join(box, 'notes.txt'), st.uid, st.gid);
    const r = await exec<Pushed>('gpuRent.uploadFolder', { id, localDir: local, remoteDir: box });
    assert.deepEqual(r.skipped, [{ name: 'notes.txt', reason: 'remote-newer' }]);
    assert.equal(fs.readFileSync(path.join(box, 'notes.txt'), 'utf8'), 'box, newer');
    const forced = await exec<Pushed>('gpuRent.uploadFolder', { id, localDir: local, remoteDir: box, force: true });
    assert.equal(forced.files, 1);
    assert.equal(fs.readFileSync(path.join(box, 'notes.txt'), 'utf8'), 'local');
    assert.match(await fails('gpuRent.uploadFolder', { id, localDir: local, remoteDir: 'relative/dir' }), /remoteDir/);
  });
});
