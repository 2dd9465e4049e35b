// A box's port on the laptop: a listener on 127.0.0.1 only, each accepted socket piped to the
// box's own loopback through a `direct-tcpip` channel (ssh2 forwardOut) of the pooled SSH
// connection. A dropped link is reconnected by the connection on the next socket (and once more
// when the channel open meets the drop); the forward ends with its owner (the instance's session,
// the CLI command). TensorBoard and Jupyter are found or started here for both front ends.
import * as net from 'node:net';
import type { ClientChannel } from 'ssh2';
import type { RemoteConnection } from '../remote/connection';
import { RemoteError } from '../remote/errors';
import { listJobs, startJob, type JobInfo } from '../remote/jobs';
import { shQuote } from '../remote/shell';

/** Why a forward could not start (codes for the CLI's JSON and both front ends' words). */
export type ForwardProblem =
  | { code: 'bad-port'; text: string }
  | { code: 'local-port-busy'; port: number }
  | { code: 'tensorboard-missing' }
  | { code: 'tensorboard-not-answering'; port: number; log: string }
  | { code: 'bad-logdir'; text: string }
  | { code: 'no-jupyter' };

export class ForwardError extends Error {
  readonly code: ForwardProblem['code'];
  constructor(
    readonly problem: ForwardProblem,
    message: string,
  ) {
    super(message);
    this.name = 'ForwardError';
    this.code = problem.code;
  }
}

export interface PortSpec {
  remote: number;
  /** The laptop's port; undefined: the same as the box's when free, else any free one. */
  local?: number;
}

function portNumber(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/** `PORT` or `PORT:LOCAL` (LOCAL 0 = any free port). */
export function parsePortSpec(text: string): PortSpec {
  const m = /^([^:]+)(?::([^:]+))?$/.exec(text.trim());
  const remote = m ? portNumber(m[1]!) : undefined;
  const local = m?.[2] === undefined ? undefined : m[2] === '0' ? 0 : portNumber(m[2]);
  if (!m || remote === undefined || (m[2] !== undefined && local === undefined))
    throw new ForwardError({ code: 'bad-port', text }, `bad port ${JSON.stringify(text)}: give the box's port (1-65535), optionally :LOCAL for the laptop's (e.g. 6006 or 6006:16006)`);
  return local === undefined ? { remote } : { remote, local };
}

export type ForwardEvent =
  | { kind: 'open'; connections: number }
  | { kind: 'channel-failed'; message: string }
  | { kind: 'link-lost'; message: string }
  | { kind: 'link-restored' }
  | { kind: 'closed' };

export interface PortForward {
  readonly remotePort: number;
  readonly localPort: number;
  /** http://127.0.0.1:LOCAL/ */
  readonly url: string;
  /** Sockets piped right now. */
  readonly active: number;
  close(): Promise<void>;
}

export interface ForwardOptions {
  /** The connection for each new socket (a pool's get, so a dropped link is remade and its state shown). */
  connection: () => Promise<RemoteConnection>;
  port: PortSpec;
  onEvent?: (e: ForwardEvent) => void;
  /** Sockets at once (a browser opens several; each is one channel). Default 64. */
  maxSockets?: number;
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(e);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // Loopback only: the box's port must never be offered to the laptop's network.
    server.listen({ host: '127.0.0.1', port, exclusive: true });
  });
}

function openChannel(conn: RemoteConnection, port: number, from: net.Socket): Promise<ClientChannel> {
  return conn.withChannel(
    (client) =>
      new Promise<ClientChannel>((resolve, reject) => {
        try {
          client.forwardOut(from.remoteAddress ?? '127.0.0.1', from.remotePort ?? 0, '127.0.0.1', port, (err, ch) => (err ? reject(err) : resolve(ch)));
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      }),
    { timeoutMs: 20_000 },
  );
}

/** Starts the listener; resolves once it listens. The box is reached per socket, so a box down now fails the socket, not this. */
export async function startForward(opts: ForwardOptions): Promise<PortForward> {
  const max = opts.maxSockets ?? 64;
  const sockets = new Set<net.Socket>();
  const emit = (e: ForwardEvent) => opts.onEvent?.(e);
  let lost = false;
  let closed = false;
  const watched = new Map<RemoteConnection, () => void>();
  const watch = (conn: RemoteConnection) => {
    if (watched.has(conn)) return;
    const onDrop = (e: { reason?: string } | undefined) => {
      if (closed) return;
      lost = true;
      emit({ kind: 'link-lost', message: e?.reason ?? 'closed' });
    };
    const onBack = () => {
      if (closed || !lost) return;
      lost = false;
      emit({ kind: 'link-restored' });
    };
    conn.on('disconnect', onDrop);
    conn.on('reconnect', onBack);
    watched.set(conn, () => {
      conn.off('disconnect', onDrop);
      conn.off('reconnect', onBack);
    });
  };

  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    if (closed || sockets.size >= max) return socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    void (async () => {
      let channel: ClientChannel | undefined;
      for (let attempt = 0; attempt < 2 && !channel; attempt++) {
        try {
          const conn = await opts.connection();
          watch(conn);
          channel = await openChannel(conn, opts.port.remote, socket);
        } catch (e) {
          // The link died under the open: once more on a fresh connection; any other refusal (nothing listens on the box's port) is final.
          const again = attempt === 0 && e instanceof RemoteError && e.code === 'disconnected';
          if (!again) {
            emit({ kind: 'channel-failed', message: e instanceof Error ? e.message : String(e) });
            socket.destroy();
            return;
          }
        }
      }
      if (!channel || socket.destroyed || closed) {
        channel?.close();
        socket.destroy();
        return;
      }
      if (lost) {
        lost = false;
        emit({ kind: 'link-restored' });
      }
      const ch = channel;
      ch.on('error', () => socket.destroy());
      ch.on('close', () => socket.destroy());
      socket.once('close', () => ch.close());
      socket.pipe(ch).pipe(socket);
      socket.resume();
      emit({ kind: 'open', connections: sockets.size });
    })();
  });

  let localPort: number;
  const wanted = opts.port.local;
  try {
    localPort = await listen(server, wanted ?? opts.port.remote);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Only when no local port was named: the box's number taken (or privileged) on the laptop gives any free one.
    if (wanted === undefined && (code === 'EADDRINUSE' || code === 'EACCES')) localPort = await listen(server, 0);
    else if (code === 'EADDRINUSE' || code === 'EACCES') throw new ForwardError({ code: 'local-port-busy', port: wanted ?? opts.port.remote }, `the laptop's port ${wanted ?? opts.port.remote} on 127.0.0.1 cannot be used (${code}): name another as PORT:LOCAL`);
    else throw e;
  }
  return {
    remotePort: opts.port.remote,
    localPort,
    url: `http://127.0.0.1:${localPort}/`,
    get active() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        for (const off of watched.values()) off();
        watched.clear();
        for (const s of sockets) s.destroy();
        server.close(() => {
          emit({ kind: 'closed' });
          resolve();
        });
      }),
  };
}

// ---- what runs on the box ------------------------------------------------------------------

/** Whether something accepts TCP on the box's 127.0.0.1:PORT (bash's /dev/tcp, no curl needed). */
export async function boxPortAnswers(conn: RemoteConnection, port: number): Promise<boolean> {
  const r = await conn.exec(`timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' 2>/dev/null && echo open || echo closed`, { login: false, timeoutMs: 15_000, maxOutputBytes: 1024 });
  return r.stdout.trim() === 'open';
}

export const AUTODL_TF_LOGS = '/root/tf-logs';
export const TENSORBOARD_PORT = 6006;
export const TENSORBOARD_JOB = 'gpu-rent-tensorboard';

/** A log folder as typed or read from a task: an absolute or ~ path, no newline or NUL, bounded. */
export function checkLogdir(text: string): string {
  const t = text.trim();
  if (t.length === 0 || t.length > 1024 || /[\0\n\r]/.test(t) || !(t.startsWith('/') || t === '~' || t.startsWith('~/')))
    throw new ForwardError({ code: 'bad-logdir', text: t.slice(0, 200) }, `bad TensorBoard log folder ${JSON.stringify(t.slice(0, 200))}: give an absolute path on the box (or ~/…)`);
  return t;
}

const LOGDIR_FLAG = /(?:^|\s)--(?:logdir|log_dir|log-dir|logging_dir|logging-dir|tensorboard_dir|tensorboard-dir)(?:=|\s+)(?:'([^']{1,1024})'|"([^"$`\\]{1,1024})"|([^\s'"$`\\;|&<>]{1,1024}))/;

/**
 * The log folder a job on the box names on its command line (`--logdir`, `--logging_dir`, …: the
 * task's run), absolute against its working folder; the newest running job first. Box text: a
 * path with `..`, a variable or a newline is not taken.
 */
export function logdirOfJobs(jobs: readonly Pick<JobInfo, 'name' | 'state' | 'command' | 'cwd' | 'startedAt'>[]): string | undefined {
  const running = jobs.filter((j) => j.state === 'running' && j.command && j.name !== TENSORBOARD_JOB).sort((a, b) => (b.startedAt ?? 0) - (a.startedAt ?? 0));
  for (const j of running) {
    const m = LOGDIR_FLAG.exec(j.command!);
    const raw = m?.[1] ?? m?.[2] ?? m?.[3];
    if (!raw || /(^|\/)\.\.(\/|$)/.test(raw) || /[\0\n\r]/.test(raw)) continue;
    const abs = raw.startsWith('/') || raw === '~' || raw.startsWith('~/') ? raw : j.cwd && j.cwd.startsWith('/') && !/(^|\/)\.\.(\/|$)/.test(j.cwd) ? `${j.cwd.replace(/\/+$/, '')}/${raw.replace(/^\.\//, '')}` : undefined;
    if (abs && abs.length <= 1024) return abs;
  }
  return undefined;
}

export interface TensorBoardOnBox {
  port: number;
  /** Whether this call started it (false: one already answered on the port). */
  started: boolean;
  logdir?: string;
}

/**
 * TensorBoard on the box's PORT: the one that answers there, or one started as the detached job
 * `gpu-rent-tensorboard` on 127.0.0.1 of the box (never on its public interfaces) over `logdir`
 * (given; else the one a running job's command names, the task's run; else AutoDL's /root/tf-logs). Waits until it answers (up to `waitMs`).
 */
export async function ensureTensorBoard(conn: RemoteConnection, opts: { port?: number; logdir?: string; waitMs?: number } = {}): Promise<TensorBoardOnBox> {
  const port = opts.port ?? TENSORBOARD_PORT;
  if (await boxPortAnswers(conn, port)) return { port, started: false };
  const fromJob = opts.logdir === undefined ? logdirOfJobs(await listJobs(conn).catch(() => [])) : undefined;
  const logdir = checkLogdir(opts.logdir ?? fromJob ?? AUTODL_TF_LOGS);
  const dir = logdir === '~' ? '"$HOME"' : logdir.startsWith('~/') ? `"$HOME"/${shQuote(logdir.slice(2))}` : shQuote(logdir);
  const has = await conn.exec('command -v tensorboard >/dev/null 2>&1 || python3 -c "import tensorboard" >/dev/null 2>&1', { timeoutMs: 30_000, maxOutputBytes: 4096 });
  if (has.code !== 0) throw new ForwardError({ code: 'tensorboard-missing' }, 'TensorBoard is not installed on the box (pip install tensorboard)');
  const line = `mkdir -p ${dir} && if command -v tensorboard >/dev/null 2>&1; then exec tensorboard --logdir ${dir} --host 127.0.0.1 --port ${port}; else exec python3 -m tensorboard.main --logdir ${dir} --host 127.0.0.1 --port ${port}; fi`;
  const job = await startJob(conn, { name: TENSORBOARD_JOB, command: [line], cwd: '/tmp' });
  const deadline = Date.now() + (opts.waitMs ?? 45_000);
  while (Date.now() < deadline) {
    if (await boxPortAnswers(conn, port)) return { port, started: true, logdir };
    await new Promise((r) => setTimeout(r, 700));
  }
  const tail = await conn.exec(`tail -c 2000 ${shQuote(job.logPath)} 2>/dev/null`, { login: false, timeoutMs: 10_000, maxOutputBytes: 4096 }).catch(() => ({ stdout: '' }));
  throw new ForwardError({ code: 'tensorboard-not-answering', port, log: tail.stdout }, `TensorBoard was started on the box but does not answer on port ${port}; its log (${job.logPath}) ends:\n${tail.stdout}`);
}

export interface JupyterOnBox {
  port: number;
  /** The path and query to open (its base_url and ?token=…), read from the box: untrusted, checked. */
  path: string;
}

/**
 * The Jupyter server running on the box (`jupyter server list --json`, else the notebook's), its
 * port on the box's loopback and the path with its token. The answer is box text: only a port
 * number, a base_url of URL-safe characters and a token of [A-Za-z0-9] are taken from it.
 */
export async function findJupyter(conn: RemoteConnection): Promise<JupyterOnBox> {
  const r = await conn.exec('{ jupyter server list --json 2>/dev/null || jupyter notebook list --json 2>/dev/null; } | head -c 65536', { timeoutMs: 30_000, maxOutputBytes: 70_000 });
  for (const line of r.stdout.split('\n')) {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    const o = v as { port?: unknown; base_url?: unknown; token?: unknown };
    const port = typeof o.port === 'number' && Number.isInteger(o.port) && o.port > 0 && o.port < 65536 ? o.port : undefined;
    if (port === undefined) continue;
    const base = typeof o.base_url === 'string' && /^\/[A-Za-z0-9/_.~-]{0,200}$/.test(o.base_url) ? o.base_url : '/';
    const token = typeof o.token === 'string' && /^[A-Za-z0-9]{1,128}$/.test(o.token) ? o.token : '';
    return { port, path: `${base.endsWith('/') ? base : base + '/'}${token ? `?token=${token}` : ''}` };
  }
  throw new ForwardError({ code: 'no-jupyter' }, 'no Jupyter server runs on the box (jupyter server list shows none)');
}
