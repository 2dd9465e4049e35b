// What the e2e driver hands to the tests inside the extension host: the loopback sshd, where
// to write results, and the folders whose files must never hold a secret.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

export interface HostInfo {
  sshd: { host: string; port: number; user: string; password: string; privateKeyPath: string; home: string };
  /** A file the in-host tests write to choose the nvidia-smi fixture the fake binary prints. */
  nvidiaSmiFixtureFile?: string;
  userDataDir: string;
  resultsPath: string;
  logPath: string;
  /** Where checkpoint syncs should land. */
  localSyncDir: string;
  grep?: string;
}

export interface HostResults {
  passed: number;
  failed: number;
  skipped: number;
  failures: { title: string; error: string }[];
}

let cached: HostInfo | undefined;
/** The driver writes the info beside the opened workspace; the env var wins when inherited. */
export function readInfo(): HostInfo {
  if (cached) return cached;
  const candidates = [process.env.GPU_RENT_E2E_INFO, ...(vscode.workspace.workspaceFolders ?? []).map((f) => path.join(f.uri.fsPath, '.e2e-info.json'))];
  for (const c of candidates) {
    if (c && fs.existsSync(c)) return (cached = JSON.parse(fs.readFileSync(c, 'utf8')) as HostInfo);
  }
  throw new Error(`e2e info file not found (looked at: ${candidates.filter(Boolean).join(', ')})`);
}

/** Runs a command as a script would (argument object in, result or rejection out). */
export const exec = <T>(id: string, arg?: unknown) => vscode.commands.executeCommand(id, arg) as Thenable<T>;

/** The message a scripted command rejects with; fails the test when it succeeds. */
export async function fails(id: string, arg: unknown): Promise<string> {
  try {
    await exec(id, arg);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  throw new Error(`${id} did not fail`);
}

export function log(msg: string): void {
  fs.appendFileSync(readInfo().logPath, `      · ${msg}\n`);
}

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000, everyMs = 200): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false && v !== null) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Every regular file under dir (skipping huge ones), for secret scans. */
export function filesUnder(dir: string, maxBytes = 20 * 1024 * 1024): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) { try { if (fs.statSync(p).size <= maxBytes) out.push(p); } catch { /* vanished */ } }
    }
  };
  walk(dir);
  return out;
}

/** Secrets the suites used, for the driver's scan of the browser-side storage. */
export function noteSecret(secret: string): void {
  fs.appendFileSync(readInfo().resultsPath + '.secrets', secret + '\n');
}
