// Targets as users paste them, plus the small pure pieces of the remote layer: quoting, backoff,
// the host-key verifier's strict booleans, df parsing, job names and launchers.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { backoffDelay } from '../../src/remote/connection';
import { createHostVerifier, fingerprint, KnownHosts, type HostKeyOutcome } from '../../src/remote/hostkeys';
import { sanitizeJobName, wrapWithLauncher } from '../../src/remote/jobs';
import { parseDataDir } from '../../src/remote/platform';
import { parseDf } from '../../src/remote/probe';
import { shQuote } from '../../src/remote/shell';
import { knownHostsName, parseTarget, tryParseTarget } from '../../src/remote/target';

describe('parseTarget', () => {
  it('reads the AutoDL login command pasted whole', () => {
    const t = parseTarget('ssh -p 12345 root@connect.westb.seetacloud.com');
    assert.equal(t.host, 'connect.westb.seetacloud.com');
    assert.equal(t.port, 12345);
    assert.equal(t.user, 'root');
    assert.deepEqual(t.identityFiles, []);
    assert.equal(t.source, 'ssh-command');
  });

  it('takes -i KEY, options after the host, and -p glued to its value', () => {
    const t = parseTarget('ssh root@region-1.autodl.com -p 38076 -i ~/.ssh/autodl_key');
    assert.deepEqual([t.host, t.port, t.user, t.identityFiles], ['region-1.autodl.com', 38076, 'root', ['~/.ssh/autodl_key']]);
    const g = parseTarget('ssh -p38076 -i"/k e y" root@h.example');
    assert.deepEqual([g.port, g.identityFiles], [38076, ['/k e y']]);
  });

  it('acts on -o Port/User/IdentityFile and lists other -o options as ignored', () => {
    const t = parseTarget('ssh -o StrictHostKeyChecking=no -o "ServerAliveInterval 30" -o Port=2200 -o User=ubuntu -C h.example');
    assert.equal(t.port, 2200);
    assert.equal(t.user, 'ubuntu');
    assert.ok(t.ignored.includes('-o StrictHostKeyChecking=no'));
    assert.ok(t.ignored.includes('-o ServerAliveInterval 30'));
  });

  it('uses the ssh line of a pasted console block (command, then password)', () => {
    const t = parseTarget('登录指令:\n$ ssh -p 40022 root@connect.nmb1.seetacloud.com\n密码: abc123');
    assert.deepEqual([t.host, t.port], ['connect.nmb1.seetacloud.com', 40022]);
  });

  it('reads ssh://user@host:port, IPv6, user@host:port and host', () => {
    assert.deepEqual(pick(parseTarget('ssh://root@h.example:2222')), ['h.example', 2222, 'root']);
    assert.deepEqual(pick(parseTarget('ssh://[::1]:2222')), ['::1', 2222, undefined]);
    assert.deepEqual(pick(parseTarget('root@10.0.0.5:31000')), ['10.0.0.5', 31000, 'root']);
    assert.deepEqual(pick(parseTarget('gpu-box.example')), ['gpu-box.example', 22, undefined]);
  });

  it('finds a Host alias in ~/.ssh/config (parsed by ssh-config)', () => {
    const config = 'Host autodl\n  HostName connect.westb.seetacloud.com\n  Port 12345\n  User root\n  IdentityFile ~/.ssh/id_autodl\n\nHost *\n  ServerAliveInterval 30\n';
    const t = parseTarget('autodl', { sshConfig: config });
    assert.deepEqual([t.host, t.port, t.user, t.identityFiles, t.alias, t.source], ['connect.westb.seetacloud.com', 12345, 'root', ['~/.ssh/id_autodl'], 'autodl', 'ssh-config']);
    // `ssh autodl` pasted also goes through the config; -p on the command line wins.
    assert.equal(parseTarget('ssh -p 999 autodl', { sshConfig: config }).port, 999);
    // A name the config says nothing specific about stays a plain host name.
    assert.deepEqual(pick(parseTarget('other.example', { sshConfig: config })), ['other.example', 22, undefined]);
  });

  it('names the problem for bad input and never throws from tryParseTarget', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /no target/],
      ['ssh -p 99999 root@h', /port must be a number from 1 to 65535/],
      ['ssh -p abc root@h', /port must be a number/],
      ['ssh -p', /-p needs a value/],
      ['ssh -Z root@h', /unknown ssh option -Z/],
      ['ssh -J jump root@h', /jump hosts/],
      ["ssh 'root@h", /unbalanced/],
      ['ssh -p 22', /names no host/],
      ['ssh://root:secret@h:22', /password/],
      ['root:pw@h', /password/],
      ['ssh://h:22/path', /path/],
      ['bad host name', /not a target/],
      ['root@-bad-', /not a valid host/],
      ['ro ot@h', /not a target/],
      ['a\u0000b', /control characters/],
    ];
    for (const [input, re] of cases) {
      const r = tryParseTarget(input);
      assert.equal(r.ok, false, input);
      if (!r.ok) assert.match(r.problem, re, input);
    }
    assert.throws(() => parseTarget('ssh -p 0 root@h'), (e: Error & { code?: string }) => e.code === 'bad-target' && /port/.test(e.message));
  });

  it('survives arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const r = tryParseTarget(s);
        if (r.ok) {
          assert.ok(Number.isInteger(r.target.port) && r.target.port >= 1 && r.target.port <= 65535);
          assert.ok(r.target.host.length > 0);
        } else assert.ok(r.problem.length > 0);
      }),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (s) => void tryParseTarget(`ssh ${s}`)), { numRuns: 1000 });
  });

  it('names hosts in known_hosts like OpenSSH', () => {
    assert.equal(knownHostsName('Connect.Example', 22), 'connect.example');
    assert.equal(knownHostsName('connect.example', 12345), '[connect.example]:12345');
  });
});

function pick(t: { host: string; port: number; user?: string }): [string, number, string | undefined] {
  return [t.host, t.port, t.user];
}

describe('shQuote', () => {
  it('leaves plain words alone and single-quotes everything else', () => {
    assert.equal(shQuote('train.py'), 'train.py');
    assert.equal(shQuote(''), "''");
    assert.equal(shQuote("x'; touch /tmp/PWNED; '"), `'x'\\''; touch /tmp/PWNED; '\\'''`);
    assert.equal(shQuote('A=b'), "'A=b'"); // never read as an assignment
    assert.equal(shQuote('~/x'), "'~/x'");
  });
  it('refuses NUL, which no shell argument can hold', () => {
    assert.throws(() => shQuote('a\0b'), /NUL/);
  });
  it('round-trips through a local sh byte for byte', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => !s.includes('\0')), (s) => {
        const out = execFileSync('sh', ['-c', `printf %s ${shQuote(s)}`]);
        assert.equal(out.toString('utf8'), s);
      }),
      { numRuns: 150 },
    );
  });
});

describe('backoffDelay', () => {
  it('doubles from the base up to the cap, with jitter between half and all of it', () => {
    assert.equal(backoffDelay(0, 250, 4000, () => 1), 250);
    assert.equal(backoffDelay(0, 250, 4000, () => 0), 125);
    assert.equal(backoffDelay(3, 250, 4000, () => 1), 2000);
    assert.equal(backoffDelay(10, 250, 4000, () => 1), 4000);
    assert.equal(backoffDelay(1000, 250, 4000, () => 0.5), 3000);
    const seen = new Set(Array.from({ length: 50 }, () => backoffDelay(2, 250, 4000)));
    assert.ok(seen.size > 5, 'jitter spreads reconnects');
    for (const d of seen) assert.ok(d >= 500 && d <= 1000);
  });
});

describe('host key verifier', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rent-hk-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'a')]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'b')]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const blob = (name: string) => Buffer.from(readFileSync(join(dir, `${name}.pub`), 'utf8').split(' ')[1]!, 'base64');

  it('prints fingerprints exactly as ssh-keygen -lf does', () => {
    for (const n of ['a', 'b']) {
      const keygen = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, `${n}.pub`)], { encoding: 'utf8' }).split(' ')[1];
      assert.equal(fingerprint(blob(n)), keygen);
    }
  });

  function verify(opts: { acceptNew?: boolean; confirm?: boolean }, key: Buffer, kh: KnownHosts): Promise<{ value: unknown; outcome?: HostKeyOutcome }> {
    return new Promise((resolve) => {
      let outcome: HostKeyOutcome | undefined;
      const v = createHostVerifier({
        knownHosts: kh,
        host: 'box.example',
        port: 2222,
        acceptNew: opts.acceptNew,
        confirmNewKey: opts.confirm === undefined ? undefined : async () => opts.confirm!,
        onOutcome: (o) => (outcome = o),
      });
      v(key, (value) => resolve({ value, outcome }));
    });
  }

  it('answers with strict booleans: unknown refused, accepted and pinned, changed refused', async () => {
    const kh = new KnownHosts(join(dir, 'kh1', 'known_hosts'));
    const refused = await verify({}, blob('a'), kh);
    assert.equal(refused.value, false); // strict false: ssh2 treats anything else as yes
    assert.equal(refused.outcome?.kind, 'unknown-refused');
    const declined = await verify({ confirm: false }, blob('a'), kh);
    assert.equal(declined.value, false);
    const accepted = await verify({ confirm: true }, blob('a'), kh);
    assert.equal(accepted.value, true);
    assert.equal(kh.lookup('box.example', 2222).length, 1);
    assert.match(readFileSync(kh.path, 'utf8'), /^\[box\.example\]:2222 ssh-ed25519 AAAA/);
    const again = await verify({}, blob('a'), kh);
    assert.equal(again.value, true);
    assert.equal(again.outcome?.kind, 'matched');
    const changed = await verify({ acceptNew: true }, blob('b'), kh); // --accept-new never overrides a pin
    assert.equal(changed.value, false);
    assert.equal(changed.outcome?.kind, 'changed');
    if (changed.outcome?.kind === 'changed') assert.deepEqual(changed.outcome.pinned, [fingerprint(blob('a'))]);
    // Same host, other port: a new identity.
    assert.deepEqual(kh.lookup('box.example', 2223), []);
  });
});

describe('probe and job helpers', () => {
  it('parses df -P -B1 and skips what is not a row', () => {
    const rows = parseDf('Filesystem 1-blocks Used Available Capacity Mounted on\n/dev/vda1 31526481920 12884901888 18641580032 41% /\noverlay 53687091200 1073741824 52613349376 2% /root/autodl-tmp\ngarbage\n');
    assert.deepEqual(rows.map((r) => [r.mountedOn, r.sizeBytes, r.usedBytes, r.availableBytes]), [
      ['/', 31526481920, 12884901888, 18641580032],
      ['/root/autodl-tmp', 53687091200, 1073741824, 52613349376],
    ]);
    assert.deepEqual(parseDf('nonsense'), []);
  });

  it('reads the data folder line', () => {
    assert.deepEqual(parseDataDir('platform\t/root/autodl-tmp', '/root'), { path: '/root/autodl-tmp', source: 'platform', platform: 'AutoDL' });
    assert.deepEqual(parseDataDir('', '/root'), { path: '/root', source: 'home' });
  });

  it('sanitises job names so tmux and folders match them exactly', () => {
    assert.equal(sanitizeJobName('train'), 'train');
    assert.equal(sanitizeJobName('lora v2.1:final'), 'lora-v2-1-final');
    assert.equal(sanitizeJobName('../../etc'), 'etc');
    assert.equal(sanitizeJobName('x'.repeat(100)).length, 64);
    assert.throws(() => sanitizeJobName('..'), /job name/);
    assert.throws(() => sanitizeJobName('训练'), /job name/);
  });

  it('wraps commands in the distributed launchers', () => {
    assert.deepEqual(wrapWithLauncher('torchrun', 2, ['python', 'train.py', '--lr', '1e-4']), ['torchrun', '--standalone', '--nproc_per_node=2', 'train.py', '--lr', '1e-4']);
    assert.deepEqual(wrapWithLauncher('deepspeed', 8, ['train.py']), ['deepspeed', '--num_gpus=8', 'train.py']);
    assert.deepEqual(wrapWithLauncher('accelerate', 4, ['python3', 'train.py']), ['accelerate', 'launch', '--num_processes=4', '--multi_gpu', 'train.py']);
    assert.deepEqual(wrapWithLauncher('accelerate', 1, ['train.py']), ['accelerate', 'launch', '--num_processes=1', 'train.py']);
    assert.deepEqual(wrapWithLauncher('torchrun', 2, ['./run.sh']), ['torchrun', '--standalone', '--nproc_per_node=2', '--no-python', './run.sh']);
    assert.throws(() => wrapWithLauncher('torchrun', 0, ['train.py']), /--gpus/);
  });
});
