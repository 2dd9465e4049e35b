// src/app/sshConfig.ts on real files: our block goes before `Host *` (ssh takes the first value,
// checked with the real `ssh -G`), replaces the block the old code appended after it, keeps a
// backup, survives a failed write or rename with the old file intact, and refuses values that
// would become new directives.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BACKUP_SUFFIX,
  listSshHosts,
  readSshConfig,
  readSshConfigSync,
  renderHostBlock,
  sshConfigPath,
  SshConfigValueError,
  upsertHostBlock,
  writeHostBlock,
  type HostBlock,
} from '../../src/app/sshConfig';

const block: HostBlock = { alias: 'gpu-rent-autodl-i0000abcd', hostName: 'connect.westb.example.com', port: 41234, user: 'root' };

// What the old Open in Remote-SSH wrote: its block appended after everything, Host * included.
const OLD_BLOCK = ['# >>> gpu-rent-autodl-i0000abcd (managed by GPU Rent)', 'Host gpu-rent-autodl-i0000abcd', '  HostName old.example.com', '  Port 22222', '  User root', '  ServerAliveInterval 15', '# <<< gpu-rent-autodl-i0000abcd', ''].join('\n');
const WITH_STAR = ['Host work', '  HostName w.example.com', '', '# defaults for everything', 'Host *', '  User nobody', '  Port 2200', '  ServerAliveInterval 60', ''].join('\n');

const haveSsh = spawnSync('ssh', ['-V']).status === 0;

/** What ssh itself resolves for `alias` from `file` (no connection is made). */
function sshResolve(file: string, alias: string): Map<string, string> {
  const r = spawnSync('ssh', ['-G', '-F', file, alias], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return new Map(r.stdout.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)]));
}

describe('app/sshConfig', () => {
  let dir: string;
  let home: string;
  let cfg: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpr-sshcfg-'));
    home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
    cfg = join(home, '.ssh', 'config');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads $HOME/.ssh/config from the env object, or the path the setting names', async () => {
    writeFileSync(cfg, 'Host a b *.corp !c\n  Port 1\nHost a\nMatch host x\n');
    const env = { HOME: home };
    assert.equal(sshConfigPath({ env }), cfg);
    assert.equal(await readSshConfig({ env }), readFileSync(cfg, 'utf8'));
    assert.equal(readSshConfigSync({ env }), readFileSync(cfg, 'utf8'));
    assert.deepEqual(listSshHosts(await readSshConfig({ env })), ['a', 'b']);
    const other = join(dir, 'other-config');
    writeFileSync(other, 'Host only\n');
    assert.deepEqual(listSshHosts(await readSshConfig({ path: other, env })), ['only']);
    assert.equal(await readSshConfig({ env: { HOME: join(dir, 'nobody') } }), null);
    assert.deepEqual(listSshHosts(null), []);
  });

  it('puts our block before the first Host * (and its comment), so our values win in ssh', async () => {
    writeFileSync(cfg, WITH_STAR, { mode: 0o600 });
    const r = await writeHostBlock(block, { env: { HOME: home } });
    assert.equal(r.changed, true);
    const text = readFileSync(cfg, 'utf8');
    const ours = text.indexOf('Host gpu-rent-autodl-i0000abcd');
    assert.ok(ours > 0 && ours < text.indexOf('# defaults for everything') && text.indexOf('# defaults for everything') < text.indexOf('Host *'), text);
    assert.ok(text.startsWith('Host work\n  HostName w.example.com\n\n# >>> gpu-rent-autodl-i0000abcd'), text);
    assert.ok(text.endsWith('# defaults for everything\nHost *\n  User nobody\n  Port 2200\n  ServerAliveInterval 60\n'), 'the rest byte for byte');
    if (haveSsh) {
      const resolved = sshResolve(cfg, block.alias);
      assert.equal(resolved.get('hostname'), 'connect.westb.example.com');
      assert.equal(resolved.get('port'), '41234');
      assert.equal(resolved.get('user'), 'root');
      assert.equal(resolved.get('serveraliveinterval'), '15');
    }
  });

  it('Match all counts as a catch-all too; without one the block is appended', () => {
    const m = upsertHostBlock('Host a\n  Port 1\nMatch all\n  User x\n', block);
    assert.ok(m.indexOf('Host gpu-rent') < m.indexOf('Match all'), m);
    const plain = upsertHostBlock('Host a\n  Port 1\n', block);
    assert.ok(plain.startsWith('Host a\n  Port 1\n\n# >>> gpu-rent'), plain);
    assert.equal(upsertHostBlock('', block), renderHostBlock(block));
    assert.ok(upsertHostBlock('Host *.corp\n  Port 1\n', block).startsWith('Host *.corp'), 'a pattern is not a catch-all');
  });

  it('replaces the block the old code appended after Host *, keeping one, and backs up the old file', async () => {
    const before = WITH_STAR + '\n' + OLD_BLOCK;
    writeFileSync(cfg, before, { mode: 0o600 });
    if (haveSsh) assert.equal(sshResolve(cfg, block.alias).get('port'), '2200', 'the old placement: Host * wins');
    const r = await writeHostBlock(block, { env: { HOME: home } });
    const text = readFileSync(cfg, 'utf8');
    assert.equal((text.match(/^Host gpu-rent-autodl-i0000abcd$/gm) ?? []).length, 1, text);
    assert.doesNotMatch(text, /old\.example\.com|22222/);
    assert.ok(text.indexOf('Host gpu-rent') < text.indexOf('Host *'));
    assert.equal(r.backupPath, cfg + BACKUP_SUFFIX);
    assert.equal(readFileSync(cfg + BACKUP_SUFFIX, 'utf8'), before);
    assert.equal(statSync(cfg + BACKUP_SUFFIX).mode & 0o777, 0o600);
    if (haveSsh) assert.equal(sshResolve(cfg, block.alias).get('port'), '41234');
    // Same values again: nothing to write.
    assert.equal((await writeHostBlock(block, { env: { HOME: home } })).changed, false);
    // A login change replaces it in place.
    await writeHostBlock({ ...block, port: 52000 }, { env: { HOME: home } });
    const again = readFileSync(cfg, 'utf8');
    assert.equal((again.match(/^Host gpu-rent-autodl-i0000abcd$/gm) ?? []).length, 1);
    assert.match(again, /Port 52000/);
    assert.doesNotMatch(again, /Port 41234/);
  });

  it('keeps the file mode; a new file is 0600 in a 0700 folder', async () => {
    writeFileSync(cfg, 'Host a\n');
    chmodSync(cfg, 0o640);
    await writeHostBlock(block, { env: { HOME: home } });
    assert.equal(statSync(cfg).mode & 0o777, 0o640);
    const fresh = join(dir, 'fresh');
    await writeHostBlock(block, { env: { HOME: fresh } });
    assert.equal(statSync(join(fresh, '.ssh', 'config')).mode & 0o777, 0o600);
    assert.equal(statSync(join(fresh, '.ssh')).mode & 0o777, 0o700);
    assert.equal(readdirSync(join(fresh, '.ssh')).includes('config' + BACKUP_SUFFIX), false, 'nothing to back up');
  });

  for (const step of ['write', 'rename'] as const) {
    it(`a ${step} that fails mid-way leaves the old file intact and no temporary file`, async () => {
      const before = WITH_STAR + '\n' + OLD_BLOCK;
      writeFileSync(cfg, before, { mode: 0o600 });
      const steps =
        step === 'write'
          ? {
              write: async (fh: import('node:fs/promises').FileHandle, text: string) => {
                await fh.writeFile(text.slice(0, 10)); // half of it, then the disk "fails"
                throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
              },
            }
          : { rename: async () => Promise.reject(Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' })) };
      await assert.rejects(writeHostBlock(block, { env: { HOME: home }, steps }), step === 'write' ? /ENOSPC/ : /EIO/);
      assert.equal(readFileSync(cfg, 'utf8'), before);
      assert.deepEqual(readdirSync(join(home, '.ssh')).filter((n) => n.endsWith('.tmp')), []);
    });
  }

  it('a linked config stays a link: the file it points to is written', async () => {
    const real = join(dir, 'dotfiles-ssh-config');
    writeFileSync(real, 'Host a\n');
    symlinkSync(real, cfg);
    const r = await writeHostBlock(block, { env: { HOME: home } });
    assert.ok(lstatSync(cfg).isSymbolicLink());
    assert.equal(readlinkSync(cfg), real);
    assert.equal(r.path, real);
    assert.match(readFileSync(real, 'utf8'), /Host gpu-rent-autodl-i0000abcd/);
  });

  it('refuses a key path with a newline, with a clear error, and writes nothing', async () => {
    writeFileSync(cfg, WITH_STAR);
    const evil = { ...block, identityFile: '/root/.ssh/id\nHost *\n  ProxyCommand touch /tmp/pwned' };
    await assert.rejects(writeHostBlock(evil, { env: { HOME: home } }), (e: unknown) => {
      assert.ok(e instanceof SshConfigValueError);
      assert.equal(e.field, 'identityFile');
      assert.equal(e.problem, 'controlCharacter');
      assert.match(e.message, /IdentityFile \(key path\) contains a newline/);
      return true;
    });
    assert.equal(readFileSync(cfg, 'utf8'), WITH_STAR);
    assert.deepEqual(readdirSync(join(home, '.ssh')), ['config'], 'no backup, no temporary file');
    for (const bad of [{ user: 'root\r' }, { hostName: 'h\u2028x' }, { hostName: 'a b' }, { alias: 'x *' }, { identityFile: 'a"b' }, { port: 0 }, { user: 'a b' }, { identityFile: '~/${EVIL}/k' }] as Partial<HostBlock>[]) {
      assert.throws(() => renderHostBlock({ ...block, ...bad }), SshConfigValueError, JSON.stringify(bad));
    }
  });

  it('quotes a key path with spaces (ssh reads back the same path) and writes a literal % as %%', () => {
    const text = renderHostBlock({ ...block, identityFile: '/home/me/My Keys/id 100%' });
    assert.match(text, /^ {2}IdentityFile "\/home\/me\/My Keys\/id 100%%"$/m);
    assert.match(text, /^ {2}IdentitiesOnly yes$/m);
    if (haveSsh) {
      // ssh -G shows the path before token expansion (%% stays %%): the spaces are what it checks.
      const f = join(dir, 'q');
      writeFileSync(f, renderHostBlock({ ...block, identityFile: '/home/me/My Keys/id_ed25519' }));
      assert.equal(sshResolve(f, block.alias).get('identityfile'), '/home/me/My Keys/id_ed25519');
    }
    assert.match(renderHostBlock({ ...block, identityFile: 'C:\\Users\\me\\.ssh\\id_ed25519' }), /IdentityFile C:\/Users\/me\/\.ssh\/id_ed25519/);
  });

  it('keeps CRLF line endings', () => {
    const out = upsertHostBlock('Host a\r\n  Port 1\r\nHost *\r\n  User x\r\n', block);
    assert.ok(!/[^\r]\n/.test(out), JSON.stringify(out));
  });
});
