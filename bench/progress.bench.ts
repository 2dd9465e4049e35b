// Training-run benchmarks: (1) progress parsing of a 100 MB log (HF Trainer style: \r-redrawn
// tqdm bars, log dicts, an eval bar) in MB/s; (2) the incremental reader on a real file through
// a real shell (`tail -c +OFFSET | head -c N`, as on the box): after the first read, an update
// reads only the appended bytes; (3) the GPU monitor's client cost per sample: 8 GPUs at 1 Hz,
// parsing, the 30-minute window and the webview message, as % of one core (target < 1 %).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProgressTracker } from '../src/core/progress';
import { LogTail } from '../src/app/runs/logTail';
import { GpuStream } from '../src/app/runs/gpuStream';
import type { RemoteConnection } from '../src/remote/connection';

function hfLog(bytes: number): string {
  const parts: string[] = ['***** Running training *****\n  Num Epochs = 3\n  Total optimization steps = 1,000,000\n'];
  let size = parts[0]!.length;
  for (let n = 1; size < bytes; n = (n % 1_000_000) + 1) {
    const pct = Math.floor((n * 100) / 1_000_000);
    let s = `\r${String(pct).padStart(3)}%|█         | ${n}/1000000 [01:23:45<12:34:56,  5.20s/it]`;
    if (n % 10 === 0) s += `\r${' '.repeat(72)}\r{'loss': ${(1 / (1 + n / 1e4)).toFixed(4)}, 'grad_norm': 0.4402, 'learning_rate': 4.1232e-05, 'epoch': ${((3 * n) / 1e6).toFixed(2)}}\n`;
    if (n % 500 === 0) s += ` 50%|█████     | 25/50 [00:03<00:03,  8.33it/s]\n`;
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

/** A RemoteConnection stand-in that runs the command in a local shell (the reader's script is POSIX sh). */
function localShell(): RemoteConnection {
  return {
    execStream: (cmd: string, o: { onStdout?: (c: Buffer) => void }) =>
      new Promise((resolve) => {
        const p = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'pipe', 'ignore'] });
        p.stdout.on('data', (c: Buffer) => o.onStdout?.(c));
        p.on('close', (code) => resolve({ code }));
      }),
  } as unknown as RemoteConnection;
}

export async function run(): Promise<void> {
  const MB = 1024 * 1024;
  const text = hfLog(100 * MB);
  const bytes = Buffer.byteLength(text);
  const t = new ProgressTracker();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < text.length; i += MB) t.feed(text.slice(i, i + MB), 1000 + i / MB);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const p = t.progress;
  console.log(`progress parse: ${(bytes / MB).toFixed(0)} MB in ${s.toFixed(2)} s = ${(bytes / MB / s).toFixed(0)} MB/s (step ${p.step}/${p.total}, loss ${p.loss}, ${p.lossCurve.length} loss points kept)`);

  const dir = mkdtempSync(join(tmpdir(), 'gpr-bench-'));
  try {
    const file = join(dir, 'output.log');
    writeFileSync(file, text);
    const tail = new LogTail(file, { firstReadBytes: 100 * MB + 1, maxBytesPerRead: 16 * MB });
    const conn = localShell();
    const r0 = process.hrtime.bigint();
    await tail.update(conn, { maxReads: 16 });
    const first = tail.bytesRead;
    const firstS = Number(process.hrtime.bigint() - r0) / 1e9;
    const add = hfLog(10_000).slice(100);
    appendFileSync(file, add);
    const r1 = process.hrtime.bigint();
    await tail.update(conn);
    const incS = Number(process.hrtime.bigint() - r1) / 1e9;
    const delta = tail.bytesRead - first;
    console.log(`incremental tail: first read ${(first / MB).toFixed(1)} MB in ${firstS.toFixed(2)} s (${(first / MB / firstS).toFixed(0)} MB/s through sh, tail -c, head -c); after appending ${Buffer.byteLength(add)} bytes the update read ${delta} bytes in ${(incS * 1000).toFixed(1)} ms${delta === Buffer.byteLength(add) ? ' (only the new bytes)' : ' (MISMATCH)'}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // 8 GPUs at 1 Hz: one chunk per second as nvidia-smi prints it.
  let now = 0;
  const stream = new GpuStream(async () => localShell(), { now: () => now });
  const tick = (k: number) => Array.from({ length: 8 }, (_, i) => `${i}, ${(k * 7 + i * 13) % 100}, ${30000 + i}, 81559, ${(300 + i).toFixed(2)}, ${60 + i}`).join('\n') + '\n';
  const TICKS = 20_000;
  const chunks = Array.from({ length: 100 }, (_, k) => tick(k));
  for (let k = 0; k < 2000; k++) stream.feed(chunks[k % 100]!);
  const c0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  for (let k = 0; k < TICKS; k++) {
    now += 1;
    const batch = stream.feed(chunks[k % 100]!);
    // What the panel posts to the webview for that tick.
    JSON.stringify({ type: 'samples', samples: batch.map((x) => [x.index, x.t, x.util, x.memUsed, x.memTotal, x.power, x.temp]), idleSeconds: stream.window.idleSeconds, now });
  }
  const cpu = process.cpuUsage(c0);
  const wall = Number(process.hrtime.bigint() - w0) / 1e9;
  const perTickUs = (cpu.user + cpu.system) / TICKS;
  console.log(`monitor client: ${perTickUs.toFixed(1)} µs CPU per 8-GPU sample (wall ${((wall / TICKS) * 1e6).toFixed(1)} µs) = ${(perTickUs / 1e4).toFixed(4)} % of one core at 1 Hz (target < 1 %); window holds ${stream.window.samples(0).length} samples per GPU`);
}
