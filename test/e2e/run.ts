// End-to-end driver: the built extension inside a real VS Code (code-server) in headless
// Chromium, against the real loopback sshd. Two tiers in one code-server:
//   1. in-host integration: the suites under test/vscode run in the extension host (via the
//      smoke-test driver's extensionTestsPath) and drive the extension's commands;
//   2. DOM checks: a fresh window with the extension loaded, read and clicked like a user.
// Prints one closing line "N passed, N failed, N skipped"; exits 1 on any failure.
// Everything started here is stopped here, by pid, on every path out.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { HostInfo, HostResults } from '../vscode/support';
import { dumpBrowserStorage } from './browser-storage';
import { followLog, prepareHostEnv, ROOT } from './host-env';
import { HOSTILE_SENTINEL, RUNNING_INSTANCE } from './shared';
import { MY_RUN, uiChecks, type UiCheck } from './ui-checks';

const OUT_DIR = path.join(ROOT, 'test-output', 'e2e');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HOST_TIMEOUT_MS = Number(process.env.E2E_HOST_TIMEOUT_MS ?? 600_000);

interface Tally { passed: number; failed: number; skipped: number; failures: string[] }
const tally: Tally = { passed: 0, failed: 0, skipped: 0, failures: [] };
const cleanups: (() => Promise<void> | void)[] = [];

function say(s: string): void { process.stdout.write(s + '\n'); }

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

async function waitHttp(url: string, timeoutMs: number, child: ChildProcess): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode} before it listened`);
    try { const r = await fetch(url); if (r.ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms`);
}

/** Kill a process group we started (detached), TERM then KILL. */
async function stopGroup(child: ChildProcess, name: string): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
  const t = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 5000);
  await gone; clearTimeout(t);
  say(`(stopped ${name}, pid ${child.pid})`);
}

function setupEnv(): { NODE: string; CODE_SERVER: string } {
  const NODE = process.env.E2E_NODE, CODE_SERVER = process.env.E2E_CODE_SERVER;
  if (!NODE || !CODE_SERVER) throw new Error('E2E_NODE and E2E_CODE_SERVER must be set (scripts/e2e.sh sets them from scripts/setup-code-server.sh)');
  return { NODE, CODE_SERVER };
}

/** With tests: the checkout as the extension under development plus the in-host runner; without: the installed .vsix. */
function workbenchUrl(port: number, folder: string, withTests: boolean): string {
  if (!withTests) return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
  const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload: [string, string][] = [['extensionDevelopmentPath', remote(ROOT)], ['extensionTestsPath', remote(path.join(ROOT, 'out', 'test', 'index.js'))]];
  return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

async function newPage(context: BrowserContext, logFile: string): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') fs.appendFileSync(logFile, `[browser ${m.type()}] ${m.text()}\n`); });
  page.on('pageerror', (e) => fs.appendFileSync(logFile, `[pageerror] ${e.message}\n`));
  return page;
}

async function runHostSuites(context: BrowserContext, port: number, info: HostInfo, ws: string, browserLog: string, userDataDir: string): Promise<void> {
  say('\n--- in-host integration (extension host, real sshd) ---');
  const page = await newPage(context, browserLog);
  let exitCode: number | undefined;
  const exited = new Promise<number>((resolve) => {
    void page.exposeFunction('codeAutomationExit', (code: number) => { exitCode = code; resolve(code); });
  });
  await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
    fs.appendFileSync(browserLog, `[host ${type}] ${JSON.stringify(args).slice(0, 2000)}\n`);
  });
  // Stream the suites' lines as they come.
  const stopTail = followLog(info.logPath);
  try {
    await page.goto(workbenchUrl(port, ws, true));
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), HOST_TIMEOUT_MS));
    const r = await Promise.race([exited, timeout]);
    await page.screenshot({ path: path.join(OUT_DIR, 'host-suites-end.png') }).catch(() => undefined);
    if (r === 'timeout') {
      tally.failed++; tally.failures.push(`in-host suites did not finish within ${HOST_TIMEOUT_MS} ms`);
    }
  } finally {
    stopTail();
  }
  if (!fs.existsSync(info.resultsPath)) {
    tally.failed++; tally.failures.push(`in-host runner wrote no results (exit code ${exitCode ?? 'none'}); see ${browserLog}`);
    return;
  }
  const res = JSON.parse(fs.readFileSync(info.resultsPath, 'utf8')) as HostResults;
  tally.passed += res.passed; tally.failed += res.failed; tally.skipped += res.skipped;
  for (const f of res.failures) tally.failures.push(`[host] ${f.title}: ${f.error.split('\n')[0]}`);
  await check('the state lives on the machine the extension runs on (files under its globalStorage), not in the browser; never the password', async () => {
    // The extension's state files (src/app/stateFiles.ts) under the server's user-data folder.
    const stateFiles: string[] = [];
    const walk = (dir: string, depth: number): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory() && depth < 6) walk(p, depth + 1);
        else if (e.isFile() && path.basename(dir) === 'state' && e.name.endsWith('.json')) stateFiles.push(p);
      }
    };
    walk(path.join(userDataDir, 'User', 'globalStorage'), 0);
    const onMachine = stateFiles.filter((f) => fs.readFileSync(f, 'utf8').includes(RUNNING_INSTANCE));
    if (onMachine.length === 0) throw new Error(`no state file under ${userDataDir} names ${RUNNING_INSTANCE} (of ${stateFiles.length})`);
    await page.waitForTimeout(3000); // the workbench flushes its storage lazily
    const entries = await dumpBrowserStorage(page);
    fs.writeFileSync(path.join(OUT_DIR, 'browser-storage-keys.txt'), entries.map((e) => e.slice(0, e.indexOf(' = ') + 1 || 200)).join('\n') + '\n');
    const holding = entries.filter((e) => e.includes(RUNNING_INSTANCE));
    if (holding.length > 0) throw new Error(`the browser still holds the instance (${holding.map((e) => e.slice(0, e.indexOf(' = '))).join(', ')}): its state is not on the machine`);
    const fileLeaks = stateFiles.filter((f) => [info.sshd.password].some((pw) => fs.readFileSync(f, 'utf8').includes(pw)));
    if (fileLeaks.length) throw new Error(`a password is in the state files: ${fileLeaks.join(', ')}`);
    const secretsFile = info.resultsPath + '.secrets';
    const secrets = [info.sshd.password, ...(fs.existsSync(secretsFile) ? fs.readFileSync(secretsFile, 'utf8').split('\n').filter(Boolean) : [])];
    const leaks = entries.filter((e) => secrets.some((pw) => e.includes(pw))).map((e) => e.slice(0, e.indexOf(' = ') + 1 || 120));
    if (leaks.length) throw new Error(`the password is stored in the browser: ${leaks.join('; ')}`);
    say(`         scanned ${entries.length} IndexedDB/localStorage entries for ${secrets.length} passwords; the instance is in ${onMachine.map((f) => path.relative(userDataDir, f)).join(', ')} on the machine`);
  });
  await check('every notification the hostile walk raised is opened: box text with command: links shows as text, no link in any, clicking every anchor runs nothing', async () => {
    const seen = await openAllNotifications(page);
    fs.writeFileSync(path.join(OUT_DIR, 'notifications.txt'), seen.map((n) => `${n.text}\n  anchors: ${JSON.stringify(n.anchors)}`).join('\n') + '\n');
    const hostile = seen.filter((n) => n.text.includes('command:workbench.action.terminal'));
    // The walk (test/vscode/suite/70-hostile-links) quotes a box in three notifications: Check GPU's
    // stderr, the run's last lines, the kept file's name. Fewer means a path went unseen.
    if (hostile.length < 3) throw new Error(`only ${hostile.length} of ${seen.length} notifications quote the hostile box (want 3): ${seen.map((n) => n.text.slice(0, 160)).join(' | ')}`);
    const anchors = seen.flatMap((n) => n.anchors);
    const bad = anchors.filter((a) => /^(command|file):|^https?:/i.test(a));
    if (bad.length) throw new Error(`links in notifications: ${bad.join(', ')}`);
    // Whatever anchors there are (none expected), clicked; a link that ran would open a terminal or write the sentinel.
    const terminals = () => page.locator('.terminal-tabs-entry, .terminal-wrapper').count();
    const before = await terminals();
    for (const a of await page.locator('.notifications-center .notification-list-item-message a').all()) await a.click().catch(() => undefined);
    await page.waitForTimeout(1500);
    if (fs.existsSync(HOSTILE_SENTINEL)) throw new Error(`${HOSTILE_SENTINEL} exists: a link ran a command`);
    if ((await terminals()) > before) throw new Error(`a terminal opened (${before} before the clicks, ${await terminals()} after)`);
    await page.screenshot({ path: path.join(OUT_DIR, 'notifications-hostile.png') });
    say(`         ${seen.length} notifications opened, ${hostile.length} quote the hostile box, ${anchors.length} anchors in all, no terminal, no ${HOSTILE_SENTINEL}`);
  });
  await page.close();
}

/** Opens the notification center and reads every notification in it (expanded, scrolled through): text and link targets. */
async function openAllNotifications(page: Page): Promise<{ text: string; anchors: string[] }[]> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.keyboard.type('Notifications: Show Notifications');
  await page.waitForTimeout(500);
  await page.keyboard.press('Enter');
  const center = page.locator('.notifications-center');
  await center.waitFor({ state: 'visible', timeout: 10_000 });
  // Taller, so fewer rows are virtualized away; then scroll through what is left.
  const seen = new Map<string, { text: string; anchors: string[] }>();
  for (let round = 0; round < 60; round++) {
    for (const t of await center.locator('.codicon-notifications-expand').all()) await t.click().catch(() => undefined);
    const rows = await center.locator('.notification-list-item').evaluateAll((els) =>
      els.map((el) => ({
        text: (el.querySelector('.notification-list-item-message') as HTMLElement | null)?.innerText ?? '',
        anchors: Array.from(el.querySelectorAll('.notification-list-item-message a')).map((a) => a.getAttribute('href') ?? a.getAttribute('data-href') ?? (a as HTMLElement).innerText),
      })),
    );
    const before = seen.size;
    for (const r of rows) seen.set(r.text, r);
    const list = center.locator('.notifications-list-container');
    const box = await list.boundingBox();
    if (box) { await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2); await page.mouse.wheel(0, 150); }
    await page.waitForTimeout(150);
    if (round > 3 && seen.size === before) break;
  }
  return [...seen.values()];
}

/** A driver-side test, counted with the others. */
async function check(title: string, fn: () => Promise<void>): Promise<void> {
  const t0 = Date.now();
  try {
    await fn();
    tally.passed++; say(`    ok   ${title} (${Date.now() - t0} ms)`);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    tally.failed++; tally.failures.push(`[driver] ${title}: ${msg.split('\n')[0]}`);
    say(`    FAIL ${title}\n         ${msg.split('\n').slice(0, 6).join('\n         ')}`);
  }
}

/** The [error] lines of the extension's own log (what it told the user went wrong). */
function extensionErrors(userDataDir: string): string[] {
  const logs = path.join(userDataDir, 'logs');
  if (!fs.existsSync(logs)) return [];
  const out: string[] = [];
  for (const f of fs.readdirSync(logs, { recursive: true, encoding: 'utf8' })) {
    if (!f.includes(`gpu-rent.gpu-rent${path.sep}`) || !f.endsWith('.log')) continue;
    out.push(...fs.readFileSync(path.join(logs, f), 'utf8').split('\n').filter((l) => l.includes('[error]')));
  }
  return out;
}

async function runUiChecks(context: BrowserContext, port: number, ws: string, userDataDir: string, browserLog: string, lang: 'en' | 'zh-cn'): Promise<void> {
  say(`\n--- DOM end to end (headless Chromium, the installed .vsix, display language ${lang}) ---`);
  const page = await newPage(context, browserLog);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(workbenchUrl(port, ws, false));
  const checks: UiCheck[] = uiChecks(lang);
  for (const c of checks) {
    const t0 = Date.now();
    try {
      await c.run(page, { outDir: OUT_DIR, root: ROOT, ws });
      tally.passed++; say(`    ok   ${c.title} (${Date.now() - t0} ms)`);
    } catch (e) {
      tally.failed++;
      const msg = e instanceof Error ? e.message : String(e);
      tally.failures.push(`[ui] ${c.title}: ${msg.split('\n')[0]}`);
      say(`    FAIL ${c.title}\n         ${msg.split('\n').slice(0, 6).join('\n         ')}`);
      for (const l of extensionErrors(userDataDir).slice(-5)) say(`         extension log: ${l}`);
      const shot = path.join(OUT_DIR, `fail-${c.title.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`);
      await page.screenshot({ path: shot }).catch(() => undefined);
      if (c.stopOnFail) break;
    }
  }
  await page.close();
}

async function main(): Promise<void> {
  const only = process.env.E2E_ONLY; // 'host' | 'ui' | 'ui-en' | undefined
  const { NODE, CODE_SERVER } = setupEnv();
  fs.rmSync(OUT_DIR, { recursive: true, force: true });
  fs.rmSync(HOSTILE_SENTINEL, { force: true });
  fs.mkdirSync(OUT_DIR, { recursive: true });
  // The temp workspace and user data, the real sshd on loopback and the suites' info file
  // (shared with test/vscode/run-electron.ts).
  const { tmp, ws, userDataDir, extDir, info, infoPath } = await prepareHostEnv({
    tmpPrefix: 'gpu-rent-e2e-', logPath: path.join(OUT_DIR, 'host-suites.log'), cleanups, say,
    keepTmp: Boolean(process.env.E2E_KEEP_TMP), ...(process.env.E2E_GREP ? { grep: process.env.E2E_GREP } : {}),
  });
  const browserLog = path.join(OUT_DIR, 'browser.log');

  // Its own config file, so nothing is written to ~/.config/code-server.
  const port = await freePort();
  fs.writeFileSync(path.join(tmp, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  // The calculator's From my runs reads the CLI's ledger too: one finished run on a 4090, as `gpu-rent runs` records it.
  fs.mkdirSync(path.join(tmp, 'gpu-rent-home'), { recursive: true });
  fs.writeFileSync(path.join(tmp, 'gpu-rent-home', 'runs.jsonl'), JSON.stringify(MY_RUN) + '\n', { mode: 0o600 });
  // The DOM checks run against the packaged extension, installed as a user would.
  const vsix = path.join(ROOT, 'dist', 'gpu-rent.vsix');
  if (!fs.existsSync(vsix)) throw new Error(`${vsix} is missing: run "npm run package" first`);
  const inst = spawnSync(NODE, [CODE_SERVER, '--config', path.join(tmp, 'config.yaml'), '--user-data-dir', userDataDir, '--extensions-dir', extDir, '--install-extension', vsix], { encoding: 'utf8', timeout: 120_000 });
  const installed = fs.readdirSync(extDir).filter((d) => d.startsWith('gpu-rent.gpu-rent-'));
  if (inst.status !== 0 || installed.length !== 1) throw new Error(`installing the .vsix into code-server failed (exit ${inst.status}): ${(inst.stderr || inst.stdout).slice(-500)}`);
  say(`installed ${path.relative(ROOT, vsix)} into code-server as ${installed[0]}`);

  // code-server is started twice on one port (one browser origin, so the instances in the
  // browser-side globalState carry over): English first, then Simplified Chinese.
  let cs: ChildProcess | undefined;
  const startCodeServer = async (locale: 'en' | 'zh-cn'): Promise<void> => {
    const csLog = fs.openSync(path.join(OUT_DIR, `code-server-${locale}.log`), 'w');
    const child = spawn(NODE, [CODE_SERVER, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--user-data-dir', userDataDir, '--extensions-dir', extDir, '--config', path.join(tmp, 'config.yaml'),
      '--vscode-option', 'enable-smoke-test-driver', '--locale', locale, ws], {
      detached: true, stdio: ['ignore', csLog, csLog],
      // The extension's known_hosts and config live in the run's temp folder, not the user's.
      env: { ...process.env, GPU_RENT_E2E_INFO: infoPath, GPU_RENT_HOME: path.join(tmp, 'gpu-rent-home'), PATH: `${path.dirname(NODE)}:${process.env.PATH ?? ''}` },
    });
    cs = child;
    await waitHttp(`http://127.0.0.1:${port}/healthz`, 60_000, child);
    say(`code-server on 127.0.0.1:${port} (pid ${child.pid}, display language ${locale})`);
  };
  cleanups.push(() => (cs ? stopGroup(cs, 'code-server') : undefined));
  await startCodeServer('en');

  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  cleanups.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'en-US' });

  if (only !== 'ui') await runHostSuites(context, port, info, ws, browserLog, userDataDir);
  if (only !== 'host') await runUiChecks(context, port, ws, userDataDir, browserLog, 'en');
  if (only !== 'host' && only !== 'ui-en') {
    // No language pack can be downloaded here: a stub one (no translations of VS Code's own
    // strings) makes code-server resolve the display language to zh-cn, so the extension
    // gets vscode.env.language = 'zh-cn' and its package.nls.zh-cn.json and l10n bundle.
    installStubLanguagePack(userDataDir, tmp);
    if (cs) await stopGroup(cs, 'code-server');
    await startCodeServer('zh-cn');
    await runUiChecks(context, port, ws, userDataDir, browserLog, 'zh-cn');
  }
}

/** What code-server reads to find installed language packs (languagepacks.json in the user-data dir), for zh-cn, with empty translations. */
function installStubLanguagePack(userDataDir: string, tmp: string): void {
  const translations = path.join(tmp, 'zh-cn-stub', 'main.i18n.json');
  fs.mkdirSync(path.dirname(translations), { recursive: true });
  fs.writeFileSync(translations, JSON.stringify({ version: '1.0.0', contents: {} }));
  fs.writeFileSync(path.join(userDataDir, 'languagepacks.json'), JSON.stringify({
    'zh-cn': { hash: 'e2e-stub', label: '中文(简体)', extensions: [{ extensionIdentifier: { id: 'gpu-rent-e2e.zh-cn-stub' }, version: '1.0.0' }], translations: { vscode: translations } },
  }));
}

async function cleanup(): Promise<void> {
  for (const c of cleanups.reverse()) { try { await c(); } catch (e) { say(`(cleanup: ${String(e)})`); } }
}

// A throw from an event handler must not leave code-server, Chromium or sshd behind.
process.once('uncaughtException', (e) => {
  say(`harness error: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  void cleanup().then(() => { say(`${tally.passed} passed, ${tally.failed + 1} failed, ${tally.skipped} skipped`); process.exit(1); });
});

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => { interrupted = true; void cleanup().then(() => process.exit(130)); });
}

main()
  .catch((e: unknown) => {
    tally.failed++;
    const msg = e instanceof Error ? e.message : String(e);
    tally.failures.push(`harness: ${msg}`);
    say(`harness error: ${msg}`);
  })
  .finally(async () => {
    if (interrupted) return;
    await cleanup();
    say('');
    for (const f of tally.failures) say(`FAILED ${f}`);
    say(`${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`);
    process.exit(tally.failed > 0 ? 1 : 0);
  });
