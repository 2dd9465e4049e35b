// One training run across several boxes on the existing engines: the launcher (torchrun,
// deepspeed --no_ssh with a hostfile, accelerate) started on every node with the node count,
// its rank, the first node's address as the others reach it and the port. Before starting:
// every node has the same GPU count and reaches the first node on that port. The run is one
// job: the same name on every node; stop stops all; logs come back with the rank in front.
import type { RemoteConnection } from '../../remote/connection';
import { badInput, boxFailed, boxOutput } from '../../remote/errors';
import { countGpus, listJobs, readLog, sanitizeJobName, startJob, stopJob, type JobInfo, type Launcher, type StartedJob } from '../../remote/jobs';
import { shQuote } from '../../remote/shell';

/** `python train.py --lr 1e-4` → argv (spaces split; quotes keep a part whole). */
export function splitCommand(s: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

export interface RunNode {
  /** How the user named it (TARGET, instance name). */
  label: string;
  conn: RemoteConnection;
}

export interface Rendezvous {
  nnodes: number;
  nodeRank: number;
  masterAddr: string;
  masterPort: number;
  gpusPerNode: number;
  /** Where the DeepSpeed hostfile is on the node (deepspeed only). */
  hostfile?: string;
}

export const DEFAULT_RENDEZVOUS_PORT = 29500;

/** The launcher's argv on one node. `argv` is the user's command (`python train.py …` or a script). */
export function multiNodeArgv(launcher: Launcher, r: Rendezvous, argv: readonly string[]): string[] {
  if (argv.length === 0) throw badInput({ code: 'launch-command-missing' });
  const isPython = /^(?:.*\/)?python(?:3(?:\.\d+)?)?$/.test(argv[0]!);
  const script = isPython ? argv.slice(1) : [...argv];
  if (script.length === 0) throw badInput({ code: 'launch-script-missing' });
  const direct = !isPython && !script[0]!.endsWith('.py');
  const addr = r.masterAddr;
  const port = String(r.masterPort);
  switch (launcher) {
    case 'torchrun':
      return ['torchrun', `--nnodes=${r.nnodes}`, `--node_rank=${r.nodeRank}`, `--nproc_per_node=${r.gpusPerNode}`, `--master_addr=${addr}`, `--master_port=${port}`, ...(direct ? ['--no-python'] : []), ...script];
    case 'deepspeed':
      return ['deepspeed', `--hostfile=${r.hostfile ?? 'hostfile'}`, '--no_ssh', `--node_rank=${r.nodeRank}`, `--master_addr=${addr}`, `--master_port=${port}`, ...(direct ? ['--no_python'] : []), ...script];
    case 'accelerate':
      return ['accelerate', 'launch', `--num_machines=${r.nnodes}`, `--machine_rank=${r.nodeRank}`, `--main_process_ip=${addr}`, `--main_process_port=${port}`, `--num_processes=${r.nnodes * r.gpusPerNode}`, '--multi_gpu', ...(direct ? ['--no_python'] : []), ...script];
  }
}

/** A DeepSpeed hostfile: one `host slots=N` line per node (rank order). */
export function deepspeedHostfile(hosts: readonly string[], slots: number): string {
  return hosts.map((h) => `${h} slots=${slots}`).join('\n') + '\n';
}

/** The first node's private address (the one its default route leaves by), as the others in its VPC reach it. */
export async function privateAddress(conn: RemoteConnection): Promise<string> {
  const r = await conn.exec(
    "ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \\([0-9.]*\\).*/\\1/p' | head -n 1; hostname -I 2>/dev/null | awk '{print $1}'",
    { timeoutMs: 15000, login: false },
  );
  const addr = r.stdout.split('\n').map((l) => l.trim()).find((l) => /^\d{1,3}(?:\.\d{1,3}){3}$/.test(l));
  if (!addr) throw boxFailed({ code: 'private-address-unknown' });
  return addr;
}

export interface PreflightResult {
  gpus: number[];
  /** Per other node: did it reach masterAddr:port? */
  reach: { label: string; ok: boolean; detail: string }[];
}

/**
 * Checks that every node has the same GPU count and that nodes 1…N-1 reach the first node on
 * the port (a listener is opened there for the check). Throws a RemoteError naming the node.
 */
export async function preflight(nodes: readonly RunNode[], masterAddr: string, port: number, opts: { gpus?: number } = {}): Promise<PreflightResult> {
  const gpus = opts.gpus !== undefined ? nodes.map(() => opts.gpus!) : await Promise.all(nodes.map((n) => countGpus(n.conn)));
  if (new Set(gpus).size > 1) throw boxFailed({ code: 'gpu-counts-differ', counts: nodes.map((n, i) => `${n.label}: ${gpus[i]}`).join(', ') });
  const listener = [
    `p=${port}`,
    'if command -v python3 >/dev/null 2>&1; then',
    // Listens for up to 20 s and accepts every connection (one per other node).
    '  python3 -c "import socket,sys,time\ns=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\ntry: s.bind((\'\',int(sys.argv[1])))\nexcept OSError as e: print(\'busy\',e,flush=True);sys.exit(3)\ns.listen(64);s.settimeout(1);print(\'listening\',flush=True);end=time.time()+20\nwhile time.time()<end:\n  try: c,_=s.accept();c.close()\n  except socket.timeout: pass" "$p" >/tmp/.gpu-rent-listen-$p.out 2>&1 </dev/null &',
    // Its output goes to a file: a background child holding the channel open would keep this exec from returning.
    '  l=$!; echo $l > /tmp/.gpu-rent-listen-$p.pid; i=0; while [ $i -lt 30 ] && ! grep -q listening /tmp/.gpu-rent-listen-$p.out 2>/dev/null; do kill -0 $l 2>/dev/null || break; sleep 0.1; i=$((i+1)); done',
    '  if grep -q listening /tmp/.gpu-rent-listen-$p.out 2>/dev/null; then echo ok; else echo busy; exit 3; fi',
    'else echo nopython; fi',
  ].join('\n');
  const first = nodes[0]!;
  const r = await first.conn.exec(listener, { timeoutMs: 15000, login: false });
  if (r.stdout.includes('busy') || r.code === 3) throw boxFailed({ code: 'port-in-use', port, node: first.label });
  const reach: PreflightResult['reach'] = [];
  try {
    for (const n of nodes.slice(1)) {
      if (r.stdout.includes('nopython')) {
        reach.push({ label: n.label, ok: true, detail: 'not checked (no python3 on the first node)' });
        continue;
      }
      const probe = `timeout 5 bash -c ${shQuote(`exec 3<>/dev/tcp/${masterAddr}/${port}`)} 2>&1 && echo reached`;
      const p = await n.conn.exec(probe, { timeoutMs: 15000, login: false });
      const ok = p.stdout.includes('reached');
      reach.push({ label: n.label, ok, detail: ok ? 'reached' : (p.stdout + p.stderr).trim().slice(0, 200) || 'no answer' });
    }
  } finally {
    await first.conn.exec(`kill $(cat /tmp/.gpu-rent-listen-${port}.pid 2>/dev/null) 2>/dev/null; rm -f /tmp/.gpu-rent-listen-${port}.pid /tmp/.gpu-rent-listen-${port}.out; exit 0`, { timeoutMs: 10000, login: false }).catch(() => undefined);
  }
  const bad = reach.filter((x) => !x.ok);
  if (bad.length) throw boxFailed({ code: 'nodes-unreachable', nodes: bad.map((b) => b.label).join(', '), first: first.label, address: masterAddr, port, output: boxOutput(bad[0]!.detail) });
  return { gpus, reach };
}

export interface MultiNodeOptions {
  name: string;
  command: string[];
  launcher: Launcher;
  port?: number;
  /** The first node's address as the others reach it (default: its private address). */
  masterAddr?: string;
  cwd?: string;
  env?: Record<string, string>;
  gpus?: number;
  runner?: 'tmux' | 'setsid';
  /** Hosts for the DeepSpeed hostfile, in rank order (default: the master address, then each node's private address). */
  hosts?: string[];
}

export interface MultiNodeRun {
  name: string;
  masterAddr: string;
  port: number;
  gpusPerNode: number;
  nodes: { label: string; rank: number; job: StartedJob }[];
}

/** Checks, then starts the launcher on every node (rank 0 first). Stops the started ones if a later node fails. */
export async function startMultiNode(nodes: readonly RunNode[], o: MultiNodeOptions): Promise<MultiNodeRun> {
  if (nodes.length < 2) throw badInput({ code: 'nodes-too-few' });
  const name = sanitizeJobName(o.name);
  const port = o.port ?? DEFAULT_RENDEZVOUS_PORT;
  const masterAddr = o.masterAddr ?? (await privateAddress(nodes[0]!.conn));
  const pre = await preflight(nodes, masterAddr, port, o.gpus !== undefined ? { gpus: o.gpus } : {});
  const gpusPerNode = pre.gpus[0]!;
  let hostfileText: string | undefined;
  if (o.launcher === 'deepspeed') {
    const hosts = o.hosts ?? [masterAddr, ...(await Promise.all(nodes.slice(1).map((n) => privateAddress(n.conn))))];
    hostfileText = deepspeedHostfile(hosts, gpusPerNode);
  }
  const started: MultiNodeRun['nodes'] = [];
  try {
    for (const [rank, n] of nodes.entries()) {
      let hostfile: string | undefined;
      if (hostfileText) {
        const r = await n.conn.exec(`mkdir -p "$HOME/.gpu-rent" && cat > "$HOME/.gpu-rent/hostfile-${name}" && echo "$HOME/.gpu-rent/hostfile-${name}"`, { stdin: hostfileText, timeoutMs: 15000, login: false });
        hostfile = r.stdout.trim();
      }
      const argv = multiNodeArgv(o.launcher, { nnodes: nodes.length, nodeRank: rank, masterAddr, masterPort: port, gpusPerNode, ...(hostfile ? { hostfile } : {}) }, o.command);
      const env = { ...(o.env ?? {}), GPU_RENT_NODE_RANK: String(rank), GPU_RENT_NNODES: String(nodes.length), MASTER_ADDR: masterAddr, MASTER_PORT: String(port) };
      const job = await startJob(n.conn, { name, command: argv, env, ...(o.cwd ? { cwd: o.cwd } : {}), ...(o.runner ? { runner: o.runner } : {}) });
      started.push({ label: n.label, rank, job });
    }
  } catch (e) {
    await Promise.all(started.map((s) => stopJob(nodes[s.rank]!.conn, name, { graceSeconds: 2 }).catch(() => undefined)));
    throw e;
  }
  return { name, masterAddr, port, gpusPerNode, nodes: started };
}

/** Each node's state of the run (rank = position in `nodes`). */
export async function multiNodeJobs(nodes: readonly RunNode[], name: string): Promise<{ label: string; rank: number; job: JobInfo | null }[]> {
  return Promise.all(nodes.map(async (n, rank) => ({ label: n.label, rank, job: (await listJobs(n.conn, { name })).find((j) => j.name === sanitizeJobName(name)) ?? null })));
}

/** Stops the run on every node (at once). */
export async function stopMultiNode(nodes: readonly RunNode[], name: string, opts: { graceSeconds?: number } = {}): Promise<{ label: string; rank: number; job: JobInfo | null; error?: string }[]> {
  return Promise.all(
    nodes.map(async (n, rank) => {
      try {
        return { label: n.label, rank, job: await stopJob(n.conn, name, opts) };
      } catch (e) {
        return { label: n.label, rank, job: null, error: e instanceof Error ? e.message : String(e) };
      }
    }),
  );
}

/** Every node's log, each line with `[rank N] ` in front, nodes in rank order. */
export async function multiNodeLogs(nodes: readonly RunNode[], name: string, opts: { lines?: number } = {}): Promise<string> {
  const parts = await Promise.all(nodes.map((n) => readLog(n.conn, name, opts).then((r) => r.text, (e: unknown) => `gpu-rent: ${e instanceof Error ? e.message : String(e)}\n`)));
  return parts
    .map((text, rank) =>
      text
        .split('\n')
        .filter((l, i, a) => l !== '' || i < a.length - 1)
        .map((l) => `[rank ${rank}] ${l.split('\r').filter(Boolean).pop() ?? ''}`)
        .join('\n'),
    )
    .filter(Boolean)
    .join('\n') + '\n';
}
