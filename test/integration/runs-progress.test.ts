// Progress read from a real job's log on a real box: the log tail is read by byte offset (a
// second read brings only the new bytes), `gpu-rent jobs --json` gives each job its progress with
// ETA and cost to finish at the given price, `gpu-rent logs --progress` prints the line, a log
// that shrank is read again from its start, and a multibyte character split by a read is kept.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RemoteConnection } from '../../src/remote/connection';
import { listJobs, startJob } from '../../src/remote/jobs';
import { LogTail, readTail } from '../../src/app/runs/logTail';
import { runCli } from '../support/cli';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, sleep, tempDir } from './remote-helpers';

// A training loop that prints like the HF Trainer: the header, then \r-redrawn tqdm bars.
const TRAIN = [
  "printf '***** Running training *****\\n  Num Epochs = 3\\n  Total optimization steps = 1,500\\n'",
  'i=0; while [ $i -lt 450 ]; do i=$((i+50)); printf "\\r%3d%%|██        | %d/1500 [00:10<01:00,  2.00s/it]" $((i*100/1500)) $i; done',
  "printf \"\\n{'loss': 0.9821, 'grad_norm': 0.44, 'learning_rate': 4.1e-05, 'epoch': 0.9}\\n\"",
  'sleep 60',
].join('; ');

describe('training progress from the log (real sshd)', function () {
  this.timeout(60000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;

  before(async () => {
    sshd = await startSshd();
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
    await conn.connect();
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  it('reads only new bytes by offset; a shrunk log starts over; split UTF-8 is kept whole', async () => {
    const f = join(sshd.home, 'tail-test.log');
    sshd.runAsUser(`printf 'step 1/10 loss=0.9\\n' > ${f}`);
    const tail = new LogTail(f);
    const a = await tail.update(conn);
    assert.equal(a.progress.step, 1);
    const first = tail.bytesRead;
    assert.equal(first, 'step 1/10 loss=0.9\n'.length);
    sshd.runAsUser(`printf 'step 2/10 loss=0.8\\n' >> ${f}`);
    const b = await tail.update(conn);
    assert.equal(b.progress.step, 2);
    assert.equal(tail.bytesRead - first, 'step 2/10 loss=0.8\n'.length, 'the second read brought only the appended line');
    const c = await tail.update(conn);
    assert.equal(c.chunk.text, '', 'nothing new, nothing read');
    sshd.runAsUser(`printf 'step 1/5\\n' > ${f}`);
    const d = await tail.update(conn);
    assert.equal(d.chunk.reset, true);
    assert.equal(d.progress.step, 1);
    assert.equal(d.progress.total, 5);
    // "損失" is 3 bytes a character: a 2-byte read limit cuts inside one and keeps it for the next.
    sshd.runAsUser(`printf '損失' > ${f}`);
    const r1 = await readTail(conn, f, 0, 4);
    assert.equal(r1.text, '損');
    assert.equal(r1.to, 3);
    const r2 = await readTail(conn, f, r1.to, 4);
    assert.equal(r2.text, '失');
    const missing = await readTail(conn, join(sshd.home, 'nope.log'), 0);
    assert.equal(missing.size, -1);
  });

  it('gpu-rent jobs --json and logs --progress: step, total, rate, ETA and cost to finish', async () => {
    await startJob(conn, { name: 'hf', command: [TRAIN], cwd: '~' });
    for (let i = 0; i < 100; i++) {
      const [j] = await listJobs(conn, { name: 'hf' });
      if (j) {
        const r = await readTail(conn, j.logPath, 0);
        if (r.text.includes("'loss'")) break;
      }
      await sleep(50);
    }
    const home = tempDir();
    try {
      const env = { GPU_RENT_PASSWORD: sshd.password, GPU_RENT_KNOWN_HOSTS: join(home.path, 'kh'), HOME: home.path };
      const target = `ssh://${sshd.user}@127.0.0.1:${sshd.port}`;
      const listed = runCli(['jobs', target, '--accept-new', '--json', '--rate', '1.98', '--disk-gb', '50', '--storage-rate', '0.02'], { env });
      assert.equal(listed.code, 0, listed.stderr);
      const jobs = JSON.parse(listed.stdout) as { name: string; progress: Record<string, unknown> | null }[];
      const p = jobs.find((j) => j.name === 'hf')!.progress!;
      assert.equal(p.step, 450);
      assert.equal(p.total, 1500);
      assert.equal(p.rate, 0.5);
      assert.equal(p.loss, 0.9821);
      assert.equal(p.stalled, false);
      const eta = p.etaSeconds as number;
      assert.ok(eta <= 2100 && eta > 2000, `eta ${eta}`);
      // ¥1.98/h + 50 GB × ¥0.02/GB/day over the ETA
      const expected = Math.round((198 * eta) / 3600 + (100 * eta) / 86400) / 100;
      assert.ok(Math.abs((p.costToFinish as number) - expected) <= 0.011, `cost ${p.costToFinish} vs ${expected}`);
      const line = runCli(['logs', target, 'hf', '--progress', '--rate', '1.98'], { env });
      assert.equal(line.code, 0, line.stderr);
      assert.match(line.stdout, /^hf: running · step 450\/1500 · 3\d min left \(\d\d:\d\d\) · ¥1\.\d\d to finish · loss 0\.9821\n$/);
      const unpriced = JSON.parse(runCli(['jobs', target, '--json'], { env }).stdout) as { name: string; progress: Record<string, unknown> | null }[];
      assert.equal(unpriced.find((j) => j.name === 'hf')!.progress!.costToFinish, null, 'no price given: no cost');
      const table = runCli(['jobs', target], { env });
      assert.match(table.stdout, /^NAME\s+STATE\s+STARTED \(UTC\)\s+LOG\s+PROGRESS/);
      assert.match(table.stdout, /step 450\/1500/);
    } finally {
      home.remove();
    }
  });
});
