// The listing command (remote/sync/list-exec.ts) against a real sshd and GNU find: on a hostile
// tree the walk over its answer comes out exactly as the walk over SFTP's directory reads
// (names, sizes, whole-second mtimes, what is skipped and why, what could not be listed), and
// where it cannot answer whole (an unreadable sub-folder, a missing folder) it says so and SFTP
// lists instead.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import type { RemoteConnection } from '../../src/remote/connection';
import { syncRemote } from '../../src/app/sync';
import { syncOnce } from '../../src/remote/sync';
import { listRemote, MAX_LIST_ENTRIES, type RemoteListing } from '../../src/remote/sync/list';
import { execListCommand, parseExecListing } from '../../src/remote/sync/list-exec';
import type { NameRules } from '../../src/remote/sync/names';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';

describe('the listing command (real sshd, GNU find)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;
  let sftp: SFTPWrapper;
  const rules: NameRules = { platform: 'linux' };

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
    sftp = await conn.sftp();
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  const home = () => sshd.home;
  const own = (path: string) => {
    const { uid, gid } = statSync(home());
    execFileSync('chown', ['-R', '-h', `${uid}:${gid}`, path]);
  };
  const byCommand = async (folder: string) => parseExecListing(await conn.exec(execListCommand(folder), { login: false }), MAX_LIST_ENTRIES);
  const withoutTiming = (l: RemoteListing) => ({ root: l.root, files: l.files, skipped: l.skipped, unlisted: l.unlisted });

  it('a hostile tree: the same listing as SFTP, from one command', async () => {
    const t = join(home(), 'hostile');
    mkdirSync(t);
    const file = (rel: string | Buffer, body = 'x') => writeFileSync(Buffer.isBuffer(rel) ? Buffer.concat([Buffer.from(t + '/'), rel]) : join(t, rel), body);
    file('plain.bin', 'abc');
    file('with space and 中文.pt', 'y'.repeat(1000));
    file('new\nline.bin');
    file('tab\there');
    file('-rf');
    file("quote's \"double\" $(echo no) `no`");
    file('back\\slash');
    file('percent %s %y %P %T@');
    file('trailing.');
    file(Buffer.from([0x62, 0x61, 0x64, 0xff, 0x2e, 0x62, 0x69, 0x6e])); // not UTF-8
    file('.gpu-rent-sync.json', '{}'); // our state file's name at the top: reserved
    mkdirSync(join(t, 'empty'));
    mkdirSync(join(t, 'ckpt', 'checkpoint-500'), { recursive: true });
    file('ckpt/checkpoint-500/model.safetensors', 'm'.repeat(5000));
    file('ckpt/checkpoint-500/trainer_state.json', '{}');
    symlinkSync('plain.bin', join(t, 'link-inside'));
    symlinkSync('/etc/passwd', join(t, 'link-outside'));
    symlinkSync('nowhere', join(t, 'link-dangling'));
    symlinkSync('ckpt', join(t, 'link-to-dir'));
    execFileSync('mkfifo', [join(t, 'a-fifo')]);
    // Deeper than the walk goes (64 levels below the folder): the deepest are too long.
    let deep = join(t, 'deep');
    for (let i = 0; i < 67; i++) deep = join(deep, `l${i}`);
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'bottom.bin'), 'b');
    utimesSync(join(t, 'plain.bin'), 1_700_000_000.75, 1_700_000_000.75);
    own(t);

    const answer = await byCommand('hostile');
    assert.ok(answer && answer !== 'too-many', 'the command answered whole');
    assert.ok(Math.abs(answer.now - Date.now() / 1000) < 60, 'with the box clock');
    const viaSftp = await listRemote(sftp, 'hostile', rules);
    const viaCommand = await listRemote(sftp, 'hostile', rules, { byCommand: Promise.resolve(answer) });
    assert.deepEqual(withoutTiming(viaCommand), withoutTiming(viaSftp));
    assert.equal(viaCommand.now, answer.now);
    // What the walk made of it, so the comparison is not of two empty listings.
    const files = viaCommand.files.map((f) => f.rel);
    for (const rel of ['plain.bin', 'with space and 中文.pt', '-rf', 'ckpt/checkpoint-500/model.safetensors', 'link-inside', 'percent %s %y %P %T@']) assert.ok(files.includes(rel), rel);
    assert.equal(viaCommand.files.find((f) => f.rel === 'plain.bin')!.mtime, 1_700_000_000);
    const reasons = new Map(viaCommand.skipped.map((s) => [s.name, s.reason]));
    assert.equal(reasons.get('new\nline.bin'), 'control-char');
    assert.equal(reasons.get('link-outside'), 'symlink-outside');
    assert.equal(reasons.get('link-dangling'), 'symlink-dangling');
    assert.equal(reasons.get('link-to-dir'), 'symlink-to-directory');
    assert.equal(reasons.get('a-fifo'), 'special-file');
    assert.equal(reasons.get('.gpu-rent-sync.json'), 'reserved-name');
    assert.ok([...reasons.values()].includes('not-utf8'));
    assert.ok(viaCommand.skipped.some((s) => s.reason === 'too-long' && s.name.startsWith('deep/')), 'the tree deeper than the walk');
  });

  it('an unreadable sub-folder, a missing folder, a file for a folder: no answer, SFTP lists', async () => {
    const t = join(home(), 'partly');
    mkdirSync(join(t, 'closed'), { recursive: true });
    writeFileSync(join(t, 'open.bin'), 'o');
    writeFileSync(join(t, 'closed', 'secret.bin'), 's');
    writeFileSync(join(home(), 'a-file'), 'f');
    own(t);
    own(join(home(), 'a-file'));
    chmodSync(join(t, 'closed'), 0o000);
    try {
      assert.equal(await byCommand('partly'), undefined, 'find could not read a folder: not a whole answer');
      const l = await listRemote(sftp, 'partly', rules, { byCommand: byCommand('partly') });
      assert.deepEqual(l.files.map((f) => f.rel), ['open.bin']);
      assert.deepEqual(l.unlisted, ['closed']);
      assert.equal(l.now, undefined);
      assert.equal(await byCommand('no-such-folder'), undefined);
      assert.equal(await byCommand('a-file'), undefined);
      await assert.rejects(listRemote(sftp, 'no-such-folder', rules, { byCommand: byCommand('no-such-folder') }), { code: 'remote-missing' });
      await assert.rejects(listRemote(sftp, 'a-file', rules, { byCommand: byCommand('a-file') }), { code: 'remote-not-directory' });
    } finally {
      chmodSync(join(t, 'closed'), 0o755);
    }
  });

  it('a box with no session to spare (MaxSessions 2, one taken): SFTP starts once the listing command is done', async () => {
    const tight = await startSshd({ maxSessions: 2 });
    const work = tempDir();
    try {
      const t = join(tight.home, 'ckpt');
      mkdirSync(join(t, 'step-1'), { recursive: true });
      writeFileSync(join(t, 'step-1', 'a.bin'), 'a');
      const { uid, gid } = statSync(tight.home);
      execFileSync('chown', ['-R', `${uid}:${gid}`, t]);
      const local = join(work.path, 'local');
      const first = connectionTo(tight, join(work.path, 'known_hosts'));
      assert.equal((await syncOnce(syncRemote(first), { remoteDir: 'ckpt', localDir: local, settleSeconds: 0 })).files, 1);
      first.close();
      // A fresh connection (no SFTP session yet) with one session busy for 1.5 s.
      const conn2 = connectionTo(tight, join(work.path, 'known_hosts'));
      const busy = conn2.exec('sleep 1.5', { login: false });
      await new Promise((r) => setTimeout(r, 300));
      const again = await syncOnce(syncRemote(conn2), { remoteDir: 'ckpt', localDir: local, settleSeconds: 0 });
      assert.equal(again.unchanged, 1);
      assert.equal((await busy).code, 0);
      conn2.close();
    } finally {
      await tight.stop();
      work.remove();
    }
  });

  it('more entries than a listing may hold: the same clear error as SFTP gives', async () => {
    const t = join(home(), 'many');
    mkdirSync(t);
    for (let i = 0; i < 30; i++) writeFileSync(join(t, `f${i}`), '');
    own(t);
    const answer = parseExecListing(await conn.exec(execListCommand('many'), { login: false }), 20);
    assert.equal(answer, 'too-many');
    const viaSftp = await listRemote(sftp, 'many', rules, { maxEntries: 20 }).catch((e: Error) => e);
    const viaCommand = await listRemote(sftp, 'many', rules, { maxEntries: 20, byCommand: Promise.resolve(answer) }).catch((e: Error) => e);
    assert.ok(viaSftp instanceof Error && viaCommand instanceof Error);
    assert.equal(viaCommand.message, viaSftp.message);
    assert.match(viaCommand.message, /more than 20 entries/);
  });
});
