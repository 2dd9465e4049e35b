// Push over a slow link (issue 24, items 1 and 2), same run, same sshd, interleaved rounds,
// medians (PUSH_BENCH_ROUNDS, default 5; PUSH_BENCH=text,small picks parts):
//  1. a text dataset (JSONL instructions, PUSH_BENCH_TEXT_MB MB, default 100) through the
//     shaping proxy at 40 ms RTT, 10 Mbit/s: the CLI vs rsync -az, scp -r and scp -C -r.
//     The dataset is SYNTHETIC: records built from the Chinese sentences of this project's
//     own l10n bundle (l10n/bundle.l10n.zh-cn.json), cut into clauses and recombined at
//     random with numbers, one character in five swapped for another, so it compresses like real prose (gzip -6 ratio printed), not
//     like one repeated line.
//  2. 1000 × 512 B (random bytes) at 40 ms RTT, 100 and 10 Mbit/s: the CLI vs rsync -a.
// PUSH_BENCH_CLI_B=…/dist/cli.js adds another build (the one before a change) as its own row.
// The CLI compresses with zstd where the box and this side both have it (this side: Node 22.15+'s
// zlib, else a zstd binary on PATH; the line after the date says which), else gzip -6.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startSshd, type TestSshd } from '../test/support/sshd';
import { CLI } from '../test/support/cli';
import { startShapingProxy } from '../test/support/shaping-proxy';
import { runAsync } from './util';
import { findOnPath, nodeZstd } from '../src/remote/sync/segment-codec';

const ROUNDS = Number(process.env.PUSH_BENCH_ROUNDS ?? 5);
const TEXT_MB = Number(process.env.PUSH_BENCH_TEXT_MB ?? 100);
const PARTS = (process.env.PUSH_BENCH ?? 'text,small').split(',');
const CLI_B = process.env.PUSH_BENCH_CLI_B;
const SWAP = Number(process.env.PUSH_BENCH_SWAP ?? 0.2);
const TRACE = process.env.PUSH_BENCH_TRACE === '1';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** A small seeded generator, so every run makes the same dataset. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes `mb` MB of JSONL instruction records (synthetic, see the header) as train.jsonl and dev.jsonl. */
export function makeTextDataset(dir: string, mb: number): number {
  const bundle = JSON.parse(readFileSync(join(__dirname, '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
  const clauses = Object.values(bundle)
    .flatMap((v) => v.split(/[，。；：！？、（）]/u))
    .map((c) => c.replace(/\{\d+\}/g, '').replace(/ {2,}/g, ' ').trim())
    .filter((c) => /[\u4e00-\u9fff]/u.test(c) && c.length >= 2);
  const chars = [...new Set([...clauses.join('')].filter((ch) => /[\u4e00-\u9fff]/u.test(ch)))];
  const rand = rng(24);
  // One character in five swapped for another of the bundle's: prose varies, whole clauses rarely repeat
  // (PUSH_BENCH_SWAP sets the share: 0 gives text that compresses like templated instruction data).
  const pick = () => [...clauses[Math.floor(rand() * clauses.length)]!].map((ch) => (rand() < SWAP && /[\u4e00-\u9fff]/u.test(ch) ? chars[Math.floor(rand() * chars.length)]! : ch)).join('');
  const sentence = () => {
    const n = 2 + Math.floor(rand() * 4);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(rand() < 0.15 ? `${pick()}${Math.floor(rand() * 10000)}` : pick());
    return parts.join('，') + (rand() < 0.8 ? '。' : '？');
  };
  const para = (k: number) => Array.from({ length: k }, sentence).join('');
  mkdirSync(dir, { recursive: true });
  let total = 0;
  for (const [name, share] of [['train.jsonl', 0.9], ['dev.jsonl', 0.1]] as const) {
    const fd = openSync(join(dir, name), 'w');
    let bytes = 0;
    let id = 0;
    try {
      while (bytes < mb * 1e6 * share) {
        const rec = JSON.stringify({ id: `${name[0]}-${id++}`, instruction: para(1 + Math.floor(rand() * 2)), input: rand() < 0.4 ? para(1) : '', output: para(2 + Math.floor(rand() * 6)) }) + '\n';
        bytes += writeSync(fd, rec);
      }
    } finally {
      closeSync(fd);
    }
    total += bytes;
  }
  return total;
}


function sha256Dir(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else h.update(`${rel}${e.name}\0`).update(readFileSync(join(d, e.name)));
    }
  };
  walk(dir, '');
  return h.digest('hex');
}

type Tools = Array<[string, () => Promise<unknown>]>;

export async function run(): Promise<void> {
  for (const tool of ['scp', 'rsync', 'ssh']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      console.log(`skipped: ${tool} is not installed`);
      return;
    }
  }
  let sshd: TestSshd | undefined;
  const work = mkdtempSync(join(tmpdir(), 'push-bench-'));
  try {
    sshd = await startSshd();
    const { uid, gid } = statSync(sshd.home);
    const home = join(work, 'home');
    mkdirSync(home);
    const env = { HOME: home, GPU_RENT_HOME: join(home, '.gpu-rent'), GPU_RENT_PASSWORD: '', SSH_AUTH_SOCK: '' };
    const login = `${sshd.user}@127.0.0.1`;
    const sshOpts = ['-i', sshd.privateKeyPath, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'];
    const sshCmdAt = (port: number) => `ssh ${sshOpts.join(' ')} -p ${port}`;
    const boxDest = join(sshd.home, 'pushed');
    const cleanBox = () => rmSync(boxDest, { recursive: true, force: true });
    const tools = (port: number, local: string, z: boolean): Tools => [
      ['gpu-rent push (CLI)', () => runAsync(process.execPath, [CLI, 'push', `ssh://${login}:${port}`, '--identity', sshd!.privateKeyPath, '--accept-new', '--local', local, '--remote', boxDest, '--json'], env)],
      // Before/after: PUSH_BENCH_CLI_B=/path/to/other/dist/cli.js adds that build as a row of its own.
      ...(CLI_B ? ([['gpu-rent push (B)', () => runAsync(process.execPath, [CLI_B, 'push', `ssh://${login}:${port}`, '--identity', sshd!.privateKeyPath, '--accept-new', '--local', local, '--remote', boxDest, '--json'], env)]] as Tools) : []),
      [z ? 'rsync -az -e ssh' : 'rsync -a -e ssh', () => runAsync('rsync', [z ? '-az' : '-a', '-e', sshCmdAt(port), `${local}/`, `${login}:${boxDest}/`])],
      ...(z
        ? ([
            ['scp -r', () => runAsync('scp', ['-q', '-r', ...sshOpts, '-P', String(port), local, `${login}:${boxDest}`])],
            ['scp -C -r', () => runAsync('scp', ['-q', '-C', '-r', ...sshOpts, '-P', String(port), local, `${login}:${boxDest}`])],
          ] as Tools)
        : []),
    ];
    // PUSH_BENCH_TRACE=1: for each run, when the upload passed 64 KiB, 1 MiB and half its bytes
    // (the login and the setup before the bulk), and the bytes up in all, from the proxy's counter.
    // PUSH_BENCH_TOOLS=gpu-rent,rsync keeps only the rows whose names start with one of these.
    const only = process.env.PUSH_BENCH_TOOLS?.split(',');
    const rounds = async (all: Tools, check: (name: string) => void, proxy?: { bytesUp: number }) => {
      const list = only ? all.filter(([t]) => only.some((o) => t.startsWith(o))) : all;
      const times = new Map<string, number[]>(list.map(([t]) => [t, []]));
      for (let r = 0; r < ROUNDS; r++)
        for (const [name, fn] of list) {
          cleanBox();
          const t0 = performance.now();
          const base = proxy?.bytesUp ?? 0;
          const marks: Array<[number, number]> = [];
          const sampler = TRACE && proxy ? setInterval(() => marks.push([performance.now() - t0, proxy.bytesUp - base]), 10) : undefined;
          await fn();
          if (sampler) clearInterval(sampler);
          times.get(name)!.push(performance.now() - t0);
          if (sampler && proxy) {
            const total = proxy.bytesUp - base;
            const at = (n: number) => ((marks.find(([, b]) => b >= n)?.[0] ?? NaN) / 1000).toFixed(2);
            if (process.env.PUSH_BENCH_TRACE_RATE === '1') {
              const rate: string[] = [];
              for (let t = 250, prev = 0; t <= marks.at(-1)![0] + 250; t += 250) {
                const b = [...marks].reverse().find(([m]) => m <= t)?.[1] ?? 0;
                rate.push(((b - prev) / 1e6 / 0.25).toFixed(2));
                prev = b;
              }
              console.log(`    MB/s per 250 ms ${name}: ${rate.join(' ')}`);
            }
            console.log(`    trace ${name}: 64 KiB up at ${at(65536)} s, 1 MiB at ${at(1 << 20)} s, half at ${at(total / 2)} s, end ${((performance.now() - t0) / 1000).toFixed(2)} s, ${(total / 1e6).toFixed(2)} MB up`);
          }
          check(name);
        }
      cleanBox();
      return new Map([...times].map(([k, v]) => [k, { med: median(v), all: v }]));
    };
    const table = (title: string, t: Map<string, { med: number; all: number[] }>, bases: string[]) => {
      console.log(title);
      for (const [name, { med, all }] of t)
        console.log(`  ${name.padEnd(22)} ${(med / 1000).toFixed(2).padStart(7)} s  ${bases.filter((b) => t.has(b)).map((b) => `${(med / t.get(b)!.med).toFixed(2)}× ${b}`).join('  ')}   [${all.map((x) => (x / 1000).toFixed(2)).join(' ')}]`);
    };
    console.log(`${new Date().toISOString()}, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, ${ROUNDS} interleaved rounds`);
    // Which zstd this side compresses with (the box's is probed by the push itself).
    const zstdBin = findOnPath('zstd');
    console.log(`node ${process.version}: this side's zstd is ${nodeZstd() ? "Node's zlib.zstdCompress" : zstdBin ? `the binary ${zstdBin} (this Node has no zlib.zstdCompress)` : 'missing, so gzip -6'}`);

    if (PARTS.includes('text')) {
      const src = join(work, 'dataset');
      const bytes = makeTextDataset(src, TEXT_MB);
      const old = Math.floor(Date.now() / 1000) - 3600;
      for (const f of readdirSync(src)) utimesSync(join(src, f), old, old);
      const ratio = gzipSync(readFileSync(join(src, 'dev.jsonl')), { level: 6 }).length / statSync(join(src, 'dev.jsonl')).size;
      const want = sha256Dir(src);
      const proxy = await startShapingProxy(sshd.port, { rttMs: 40, bitsPerSecond: 10e6 });
      try {
        const t = await rounds(tools(proxy.port, src, true), (name) => {
          const got = sha256Dir(boxDest);
          if (got !== want) throw new Error(`${name}: the box's copy differs`);
        }, proxy);
        table(`push of a ${(bytes / 1e6).toFixed(0)} MB JSONL text dataset (synthetic, gzip -6 ratio ${ratio.toFixed(2)}), 40 ms RTT, 10 Mbit/s, median of ${ROUNDS}:`, t, ['rsync -az -e ssh', 'scp -r']);
      } finally {
        await proxy.close();
      }
      rmSync(src, { recursive: true, force: true });
    }

    if (PARTS.includes('small')) {
      const src = join(work, 'small');
      const old = Math.floor(Date.now() / 1000) - 3600;
      for (let i = 0; i < 1000; i++) {
        const d = join(src, `step-${String(i % 20).padStart(2, '0')}`);
        if (i < 20) mkdirSync(d, { recursive: true });
        const p = join(d, `shard-${i}.bin`);
        writeFileSync(p, randomBytes(512));
        utimesSync(p, old, old);
      }
      execFileSync('chown', ['-R', `${uid}:${gid}`, src]);
      const want = sha256Dir(src);
      for (const mbit of [100, 10]) {
        const proxy = await startShapingProxy(sshd.port, { rttMs: 40, bitsPerSecond: mbit * 1e6 });
        try {
          const t = await rounds(tools(proxy.port, src, false), (name) => {
            if (sha256Dir(boxDest) !== want) throw new Error(`${name}: the box's copy differs`);
          });
          table(`push of 1000 × 512 B in 20 folders, 40 ms RTT, ${mbit} Mbit/s, median of ${ROUNDS}:`, t, ['rsync -a -e ssh']);
        } finally {
          await proxy.close();
        }
      }
    }
  } finally {
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
