// A hostile SSH server for tests: ssh2's own Server on loopback, every reply under the test's
// control. One mode per attack:
//   flood     every exec prints endlessly (up to floodBytes, default 2 GiB) on stdout (or stderr)
//   escapes   nvidia-smi, the probe and the jobs listing answer with terminal escapes in every
//             box-controlled string (OSC 52 clipboard write, ESC [2J, the one-byte CSI U+009B)
//   tree      SFTP serves an endless directory tree (fan-out 16), and "wide" an endless folder
//   forged    SFTP serves files whose hash reply is forged
//   stall     exec channels open and never answer
// Authentication: the password given (any user name).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Server, utils, type Connection, type ServerChannel, type SFTPWrapper } from 'ssh2';
import { PROBE_BEGIN, PROBE_END } from '../../src/core/probe';
import { SMI_QUERY_FIELDS } from '../../src/core/smi';
import { CLI } from './cli';
import { testHostKey } from './host-key';

export type HostileMode = 'flood' | 'escapes' | 'tree' | 'wide' | 'forged' | 'stall';

export interface HostileSshd {
  host: string;
  port: number;
  user: string;
  password: string;
  mode: HostileMode;
  /** `ssh://user@127.0.0.1:port` for the CLI. */
  target: string;
  /** Commands the clients ran, in order (what an attack made the client send). */
  commands: string[];
  /** SFTP requests answered (READDIR/OPEN/READ/STAT…), to show the client stopped asking. */
  sftpRequests: number;
  /** Bytes written to exec channels so far. */
  bytesSent: number;
  close(): Promise<void>;
}

/** The escape sequences every box string carries in the 'escapes' mode. */
export const EVIL = {
  clipboard: '\x1b]52;c;cm0gLXJmIH4K\x07', // OSC 52: writes "rm -rf ~" into the clipboard
  clear: '\x1b[2J\x1b[H', // clears the screen
  c1: '\u009b31m', // CSI as one C1 character
  bidi: '\u202e',
};
const EVIL_TEXT = `${EVIL.clipboard}${EVIL.clear}${EVIL.c1}${EVIL.bidi}`;

export interface HostileOptions {
  mode: HostileMode;
  /** Bytes the flood sends per exec (default 2 GiB). */
  floodBytes?: number;
  /** Flood stderr instead of stdout. */
  floodStderr?: boolean;
  /** Files the 'forged' mode serves: name → content. */
  files?: Record<string, Buffer>;
}

const FAN_OUT = 16;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

function escapesReply(command: string): { stdout: string; stderr: string; code: number } {
  const evilName = `NVIDIA H100 80GB HBM3${EVIL_TEXT}`;
  const smiCsv = [
    SMI_QUERY_FIELDS.map((f) => (f === 'memory.total' || f === 'memory.used' ? `${f} [MiB]` : f)).join(', '),
    `0, ${evilName}, GPU-0b5c7b5e-1111-2222-3333-444455556666, 00000000:00:0A.0, 535.183.01, 81559, 0, 0, 30, 68.00, 700.00, 9.0, Disabled`,
  ].join('\n');
  const marker = /(@@GPURENT-[0-9a-f]+):smi/.exec(command)?.[1];
  if (marker) {
    const probe = {
      python: `/root/miniconda3/bin/python${EVIL_TEXT}`,
      pythonVersion: `3.10.12${EVIL.clear}`,
      conda: `base${EVIL_TEXT}`,
      torch: `2.3.0${EVIL.clipboard}`,
      torchCuda: '12.1',
      cudaAvailable: true,
      deviceCount: 1,
      deviceName: evilName,
      deviceCapability: '9.0',
      archList: ['sm_90'],
      op: 'ok',
    };
    const out = [
      `\n${marker}:smi`,
      smiCsv,
      `\n${marker}:torch`,
      `${PROBE_BEGIN}${JSON.stringify(probe)}${PROBE_END}`,
      `\n${marker}:env`,
      `conda\tbase${EVIL_TEXT}`,
      'homedir\t/root',
      `home\t/root${EVIL.clear}`,
      `\n${marker}:df`,
      `overlay${EVIL.c1} 107374182400 10737418240 96636764160 10% /${EVIL.clipboard}`,
      `\n${marker}:end`,
      '',
    ].join('\n');
    return { stdout: out, stderr: `warning${EVIL_TEXT}\n`, code: 0 };
  }
  if (command.includes('nvidia-smi')) return { stdout: smiCsv + '\n', stderr: '', code: 0 };
  if (command.includes('printf "JOB')) {
    // A listing for one name answers with that name (so logs/stop find it); else a name with escapes.
    const name = /for n in '?([A-Za-z0-9_-]+)'?; do/.exec(command)?.[1] ?? `train${EVIL.c1}`;
    const job = ['JOB', name, '4242', '', '1', '1700000000', '', 'tmux', '0', '100', `/root/.gpu-rent/jobs/x${EVIL.clipboard}/output.log`, `/root${EVIL.clear}`].join('\t');
    return { stdout: `${job}\nCMD\tpython train.py${EVIL_TEXT}\n`, stderr: '', code: 0 };
  }
  // readLog prints the log's size first, then its tail.
  if (/\btail\b/.test(command)) return { stdout: `${command.includes('-F') ? '' : '40\n'}epoch 1${EVIL_TEXT} loss 0.5\n`, stderr: '', code: 0 };
  return { stdout: '', stderr: `sh: unexpected${EVIL_TEXT}\n`, code: 1 };
}

function flood(ch: ServerChannel, server: HostileSshd, total: number, stderr: boolean): void {
  const chunk = Buffer.alloc(256 * 1024, 'x'.charCodeAt(0));
  // tqdm-like: carriage returns, no newline at all.
  for (let i = 79; i < chunk.length; i += 80) chunk[i] = 13;
  let sent = 0;
  let closed = false;
  ch.on('close', () => (closed = true));
  ch.on('error', () => (closed = true));
  const out = stderr ? ch.stderr : ch;
  const pump = (): void => {
    while (!closed && sent < total) {
      sent += chunk.length;
      server.bytesSent += chunk.length;
      if (!out.write(chunk)) {
        out.once('drain', pump);
        return;
      }
    }
    if (!closed) {
      ch.exit(0);
      ch.end();
    }
  };
  pump();
}

function serveSftp(sftp: SFTPWrapper, server: HostileSshd, opts: HostileOptions): void {
  const { OK, EOF, NO_SUCH_FILE } = utils.sftp.STATUS_CODE;
  const handles = new Map<string, { path: string; listed: number }>();
  let next = 0;
  const newHandle = (path: string): Buffer => {
    const h = Buffer.from(String(next++));
    handles.set(h.toString(), { path, listed: 0 });
    return h;
  };
  const now = Math.floor(Date.now() / 1000) - 3600;
  const dirAttrs = { mode: S_IFDIR | 0o755, uid: 0, gid: 0, size: 4096, atime: now, mtime: now };
  const fileAttrs = (size: number) => ({ mode: S_IFREG | 0o644, uid: 0, gid: 0, size, atime: now, mtime: now });
  const files = opts.files ?? {};
  const fileOf = (path: string) => files[path.replace(/^.*\//, '')];
  const count = () => void server.sftpRequests++;
  const norm = (p: string) => (p.startsWith('/') ? p : `/root/${p}`).replace(/\/+$/, '') || '/';
  sftp.on('REALPATH', (id, path) => {
    count();
    const p = norm(path);
    sftp.name(id, [{ filename: p, longname: p, attrs: dirAttrs }]);
  });
  const statLike = (id: number, path: string) => {
    count();
    const f = fileOf(path);
    if (opts.mode === 'forged' && f) return sftp.attrs(id, fileAttrs(f.length));
    if (opts.mode === 'forged' && !/\/data$/.test(norm(path))) return sftp.status(id, NO_SUCH_FILE);
    sftp.attrs(id, dirAttrs);
  };
  sftp.on('STAT', statLike);
  sftp.on('LSTAT', statLike);
  sftp.on('OPENDIR', (id, path) => {
    count();
    sftp.handle(id, newHandle(norm(path)));
  });
  sftp.on('READDIR', (id, handle) => {
    count();
    const h = handles.get(handle.toString());
    if (!h) return sftp.status(id, utils.sftp.STATUS_CODE.FAILURE);
    if (opts.mode === 'forged') {
      if (h.listed++ > 0) return sftp.status(id, EOF);
      return sftp.name(
        id,
        Object.entries(files).map(([name, c]) => ({ filename: name, longname: name, attrs: fileAttrs(c.length) })),
      );
    }
    if (opts.mode === 'tree') {
      if (h.listed++ > 0) return sftp.status(id, EOF);
      return sftp.name(
        id,
        Array.from({ length: FAN_OUT }, (_, i) => ({ filename: `d${i}`, longname: `d${i}`, attrs: dirAttrs })),
      );
    }
    // wide: a folder that never ends, 500 files per reply.
    const base = h.listed;
    h.listed += 500;
    sftp.name(
      id,
      Array.from({ length: 500 }, (_, i) => ({ filename: `f${base + i}.pt`, longname: `f${base + i}.pt`, attrs: fileAttrs(1) })),
    );
  });
  sftp.on('OPEN', (id, path) => {
    count();
    if (!fileOf(path)) return sftp.status(id, NO_SUCH_FILE);
    sftp.handle(id, newHandle(norm(path)));
  });
  sftp.on('FSTAT', (id, handle) => {
    count();
    const h = handles.get(handle.toString());
    const f = h ? fileOf(h.path) : undefined;
    if (!f) return sftp.status(id, utils.sftp.STATUS_CODE.FAILURE);
    sftp.attrs(id, fileAttrs(f.length));
  });
  sftp.on('READ', (id, handle, offset, length) => {
    count();
    const h = handles.get(handle.toString());
    const f = h ? fileOf(h.path) : undefined;
    if (!f) return sftp.status(id, utils.sftp.STATUS_CODE.FAILURE);
    if (offset >= f.length) return sftp.status(id, EOF);
    sftp.data(id, f.subarray(offset, Math.min(f.length, offset + length)));
  });
  sftp.on('CLOSE', (id, handle) => {
    count();
    handles.delete(handle.toString());
    sftp.status(id, OK);
  });
}

/** A forged hash reply: one "h <64 hex>" line per file the command names, none of them the file's SHA-256. */
function forgedHashReply(command: string, files: Record<string, Buffer>): string {
  const named = Object.entries(files)
    // The path ends at a quote (quoted) or a space / the end (a plain word: shQuote leaves those bare).
    .map(([name, content]) => ({ at: [`/${name}'`, `/${name} `, `/${name};`].map((w) => command.indexOf(w)).filter((i) => i !== -1).concat(command.endsWith(`/${name}`) ? [command.length - name.length - 1] : []).sort((a, b) => a - b)[0] ?? -1, content }))
    .filter((x) => x.at !== -1)
    .sort((a, b) => a.at - b.at);
  return named.map(({ content }) => `h ${createHash('sha256').update(content).update('forged').digest('hex')}`).join('\n') + '\n';
}

export async function startHostileSshd(options: HostileOptions): Promise<HostileSshd> {
  const hostKey = testHostKey();
  const password = 'hostile-pass';
  const conns = new Set<Connection>();
  const state: HostileSshd = {
    host: '127.0.0.1',
    port: 0,
    user: 'root',
    password,
    mode: options.mode,
    target: '',
    commands: [],
    sftpRequests: 0,
    bytesSent: 0,
    close: async () => undefined,
  };
  const server = new Server({ hostKeys: [hostKey] }, (conn) => {
    conns.add(conn);
    conn.on('close', () => conns.delete(conn));
    conn.on('error', () => undefined);
    conn.on('authentication', (ctx) => {
      if (ctx.method === 'password' && ctx.password === password) ctx.accept();
      else ctx.reject(['password']);
    });
    conn.on('ready', () => {
      conn.on('session', (accept) => {
        const session = accept();
        session.on('signal', (ok) => ok?.());
        session.on('exec', (acceptExec, _reject, info) => {
          state.commands.push(info.command);
          const ch = acceptExec();
          ch.on('error', () => undefined);
          ch.resume?.();
          if (state.mode === 'stall') return; // never a byte, never an exit
          if (state.mode === 'flood') return flood(ch, state, options.floodBytes ?? 2 * 1024 ** 3, options.floodStderr === true);
          let stdout = '';
          let stderr = '';
          let code = 0;
          if (state.mode === 'escapes') ({ stdout, stderr, code } = escapesReply(info.command));
          else if (/^date \+%s$/.test(info.command.trim())) stdout = `${Math.floor(Date.now() / 1000)}\n`;
          else if (state.mode === 'forged') stdout = forgedHashReply(info.command, options.files ?? {});
          ch.write(stdout);
          if (stderr) ch.stderr.write(stderr);
          ch.exit(code);
          ch.end();
        });
        session.on('sftp', (acceptSftp) => serveSftp(acceptSftp(), state, options));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.port = (server.address() as AddressInfo).port;
  state.target = `ssh://${state.user}@127.0.0.1:${state.port}`;
  state.close = async () => {
    for (const c of conns) c.end();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return state;
}

export interface MeasuredRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Peak resident memory of the CLI process (VmHWM from /proc, polled), bytes. */
  peakRssBytes: number;
  ms: number;
}

/**
 * Runs the built CLI (`node dist/cli.js …`) as its own process and reads its peak RSS from
 * /proc/<pid>/status (VmHWM, the kernel's high-water mark, so a short peak between polls counts).
 * Keeps at most the first 1 MiB of each stream.
 */
export function runCliMeasured(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<MeasuredRun> {
  const started = Date.now();
  const p = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (into: Buffer[], c: Buffer, size: { n: number }) => {
    if (size.n >= 1024 * 1024) return;
    into.push(c);
    size.n += c.length;
  };
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const outN = { n: 0 };
  const errN = { n: 0 };
  p.stdout.on('data', (c: Buffer) => keep(out, c, outN));
  p.stderr.on('data', (c: Buffer) => keep(err, c, errN));
  let peak = 0;
  const poll = () => {
    try {
      const m = /VmHWM:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // gone
    }
  };
  const timer = setInterval(poll, 10);
  const killer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    p.on('exit', (code, signal) => {
      clearInterval(timer);
      clearTimeout(killer);
      p.stdout.destroy();
      p.stderr.destroy();
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), peakRssBytes: peak, ms: Date.now() - started });
    });
  });
}

/** Terminal control bytes that must never reach stdout/stderr raw: C0 but \n \r \t, ESC, DEL, C1 (as U+0080–U+009F), bidi overrides. */
export const RAW_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;
