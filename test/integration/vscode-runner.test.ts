// `npm run test:vscode` (test/vscode/run-electron.ts) as far as it runs without a desktop VS Code:
// its arguments, the bundled suites, the real loopback sshd and the info file it hands to VS Code,
// the tallies it reads back, and that it leaves nothing behind. VS Code itself is played by a
// small Node script that records what @vscode/test-electron launched it with and writes the
// results file the in-host runner (test/vscode/index.ts) would write.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const RUNNER = join(ROOT, 'test', 'vscode', 'run-electron.ts');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

const FAKE_VSCODE = `#!${process.execPath}
const fs = require('fs'), net = require('net'), path = require('path');
const args = process.argv.slice(2);
const arg = (name) => { const a = args.find((x) => x.startsWith('--' + name + '=')); return a && a.slice(name.length + 3); };
const infoPath = process.env.GPU_RENT_E2E_INFO;
const info = JSON.parse(fs.readFileSync(infoPath, 'utf8'));
let banner = '';
const s = net.connect(info.sshd.port, info.sshd.host);
s.on('data', (d) => { banner += d; if (banner.includes('\\n')) { s.destroy(); done(); } });
s.on('error', (e) => { banner = 'error ' + e.message; done(); });
function done() {
  const testsPath = arg('extensionTestsPath');
  fs.writeFileSync(process.env.FAKE_VSCODE_RECORD, JSON.stringify({
    args, infoPath, info, banner: banner.trim(),
    testsPathExists: fs.existsSync(testsPath),
    suites: fs.readdirSync(path.join(path.dirname(testsPath), 'suite')).filter((f) => f.endsWith('.test.js')),
    settings: JSON.parse(fs.readFileSync(path.join(arg('user-data-dir'), 'User', 'settings.json'), 'utf8')),
  }));
  const mode = process.env.FAKE_VSCODE_MODE;
  fs.appendFileSync(info.logPath, '    ok   a line the in-host runner wrote\\n');
  if (mode !== 'no-results') fs.writeFileSync(info.resultsPath, JSON.stringify(mode === 'fail'
    ? { passed: 1, failed: 1, skipped: 0, failures: [{ title: 'suite a failing test', error: 'boom\\n    at somewhere' }] }
    : { passed: 3, failed: 0, skipped: 1, failures: [] }));
  process.exit(mode === 'fail' ? 1 : 0);
}
`;

interface Run { code: number | null; stdout: string; stderr: string }

function runRunner(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((res, rej) => {
    const child = spawn(TSX, [RUNNER, ...args], { cwd: ROOT, env: { ...process.env, VSCODE_EXECUTABLE: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const t = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('error', rej);
    child.on('close', (code) => { clearTimeout(t); res({ code, stdout, stderr }); });
  });
}

function refused(host: string, port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = net.connect(port, host);
    s.once('connect', () => { s.destroy(); res(false); });
    s.once('error', () => res(true));
  });
}

const lastLine = (text: string): string => text.trim().split('\n').pop() ?? '';

interface Record { args: string[]; infoPath: string; info: { sshd: { host: string; port: number; home: string }; userDataDir: string; grep?: string; logPath: string }; banner: string; testsPathExists: boolean; suites: string[]; settings: { [k: string]: unknown } }

describe('npm run test:vscode (the @vscode/test-electron runner, with a stand-in VS Code)', function () {
  this.timeout(60_000);
  let dir: string;
  let out: string;
  let fake: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gpu-rent-vscode-runner-'));
    mkdirSync(join(ROOT, 'out'), { recursive: true });
    out = mkdtempSync(join(ROOT, 'out', 'test-electron-it-'));
    fake = join(dir, 'code');
    writeFileSync(fake, FAKE_VSCODE);
    chmodSync(fake, 0o755);
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('--help prints the usage, naming --vscode-executable and VSCODE_EXECUTABLE', async () => {
    const r = await runRunner(['--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: npm run test:vscode -- \[options\]/);
    assert.match(r.stdout, /--vscode-executable PATH/);
    assert.match(r.stdout, /VSCODE_EXECUTABLE/);
  });

  it('refuses an unknown option, a bad --grep and a missing executable with one clear line and exit 2', async () => {
    const unknown = await runRunner(['--frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown option '--frobnicate'/);
    const grep = await runRunner(['--grep', '(']);
    assert.equal(grep.code, 2);
    assert.match(grep.stderr, /--grep "\(" is not a valid regular expression/);
    const missing = await runRunner(['--no-build'], { VSCODE_EXECUTABLE: join(dir, 'no-such-code') });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /VS Code executable not found: .*no-such-code \(from --vscode-executable or VSCODE_EXECUTABLE\)/);
    assert.equal(lastLine(missing.stdout), '0 passed, 1 failed, 0 skipped');
  });

  it('launches the given VS Code on the temp workspace with the bundled suites, a live sshd and the info file; reads the tallies back; leaves nothing behind', async () => {
    const record = join(dir, 'record-ok.json');
    const r = await runRunner(['--no-build', '--out', out, '--vscode-executable', fake, '--grep', 'instance'], { FAKE_VSCODE_RECORD: record });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(lastLine(r.stdout), '3 passed, 0 failed, 1 skipped');
    assert.match(r.stdout, /ok {3}a line the in-host runner wrote/, 'the suites\' log is followed on stdout');
    const rec = JSON.parse(readFileSync(record, 'utf8')) as Record;
    const ws = resolve(rec.infoPath, '..');
    assert.equal(rec.args[0], ws, 'the workspace folder is what VS Code opens');
    for (const a of [`--user-data-dir=${rec.info.userDataDir}`, `--extensionDevelopmentPath=${ROOT}`, `--extensionTestsPath=${join(out, 'bundle', 'index.js')}`, '--disable-extensions', '--no-sandbox']) {
      assert.ok(rec.args.includes(a), `${a} missing from ${rec.args.join(' ')}`);
    }
    assert.ok(rec.args.some((a) => a.startsWith('--extensions-dir=')), 'a private extensions dir');
    assert.ok(rec.testsPathExists, 'the runner is bundled before VS Code starts');
    const sources = readdirSync(join(ROOT, 'test', 'vscode', 'suite')).filter((f) => f.endsWith('.test.ts')).map((f) => f.replace(/\.ts$/, '.js')).sort();
    assert.ok(sources.length > 0);
    assert.deepEqual(rec.suites.sort(), sources, 'every in-host suite is bundled');
    assert.match(rec.banner, /^SSH-2\.0-OpenSSH/, 'the loopback sshd answers while VS Code runs');
    assert.equal(rec.settings['security.workspace.trust.enabled'], false);
    assert.equal(rec.info.grep, 'instance');
    assert.equal(rec.info.logPath, join(out, 'host-suites.log'));
    // Afterwards: sshd stopped, its home and the temp workspace gone.
    assert.ok(await refused(rec.info.sshd.host, rec.info.sshd.port), 'sshd still answers after the run');
    assert.equal(existsSync(rec.info.sshd.home), false, 'the sshd user\'s home is left behind');
    assert.equal(existsSync(ws), false, 'the temp workspace is left behind');
  });

  it('a failing in-host test fails the run and is named; a VS Code that writes no results fails it too', async () => {
    const failed = await runRunner(['--no-build', '--out', out], { VSCODE_EXECUTABLE: fake, FAKE_VSCODE_RECORD: join(dir, 'record-fail.json'), FAKE_VSCODE_MODE: 'fail' });
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    assert.match(failed.stdout, /^FAILED suite a failing test: boom$/m);
    assert.equal(lastLine(failed.stdout), '1 passed, 1 failed, 0 skipped');
    const silent = await runRunner(['--no-build', '--out', out], { VSCODE_EXECUTABLE: fake, FAKE_VSCODE_RECORD: join(dir, 'record-none.json'), FAKE_VSCODE_MODE: 'no-results' });
    assert.equal(silent.code, 1, silent.stdout + silent.stderr);
    assert.match(silent.stdout, /FAILED runner: VS Code ran but the in-host runner wrote no results/);
    assert.equal(lastLine(silent.stdout), '0 passed, 1 failed, 0 skipped');
  });
});
