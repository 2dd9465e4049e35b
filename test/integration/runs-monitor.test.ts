// The GPU monitor's stream on a real box: one exec channel for 10 000 samples (8 GPUs, time
// compressed: the stand-in nvidia-smi prints its -lms interval five times faster), never a
// second one open at once, idle time counted, a killed nvidia-smi resumed on a new channel,
// and stop() closes it. A hostile stand-in floods it with forged values: the caps hold.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RemoteConnection } from '../../src/remote/connection';
import { GpuStream } from '../../src/app/runs/gpuStream';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, tempDir } from './remote-helpers';
import { until } from '../support/timing';

// Prints 8 GPUs per tick in nvidia-smi's csv,noheader,nounits format; GPU 0..3 busy, the rest idle.
const STAND_IN = `#!/bin/sh
# Test stand-in for nvidia-smi --query-gpu=... -lms N (time compressed 5x). Records its pid.
echo $$ > "$HOME/smi.pid"
ms=1000; prev=""
for a in "$@"; do [ "$prev" = "-lms" ] && ms=$a; prev=$a; done
idle=\${SMI_IDLE:-0}
[ -f "$HOME/smi-idle" ] && idle=1
s=$(awk "BEGIN{print $ms/5000}")
while :; do
  i=0
  while [ $i -lt 8 ]; do
    if [ "$idle" = 1 ] || [ -f "$HOME/smi-idle" ]; then u=0; else u=$((i < 4 ? 97 : 3)); fi
    echo "$i, $u, 30000, 81559, 350.50, 71"
    i=$((i+1))
  done
  sleep "$s"
done
`;

describe('GPU monitor stream (real sshd)', function () {
  this.timeout(120000);
  let sshd: TestSshd;
  let dir: ReturnType<typeof tempDir>;
  let conn: RemoteConnection;
  const smiCount = () => Number(sshd.runAsUser(`ps -u "$(id -u)" -o stat=,args= | awk '$1 !~ /^Z/ && /bin\\/nvidia-smi/ && !/awk/' | wc -l`).trim());

  before(async () => {
    sshd = await startSshd();
    sshd.runAsUser(`cat > "$HOME/bin/nvidia-smi" <<'EOF_SMI'\n${STAND_IN}EOF_SMI\nchmod +x "$HOME/bin/nvidia-smi"`);
    dir = tempDir();
    conn = connectionTo(sshd, join(dir.path, 'known_hosts'));
    await conn.connect();
  });
  after(async () => {
    conn?.close();
    await sshd?.stop();
    dir?.remove();
  });

  it('2 000 samples over one channel; a killed nvidia-smi is resumed; stop closes it', async () => {
    let samples = 0;
    let maxOpen = 0;
    let t = 0;
    const states: string[] = [];
    const stream = new GpuStream(async () => conn, {
      intervalMs: 50,
      retryMs: 200,
      // Each chunk a second later: the page gets one sample per GPU and second, so time runs one second per read
      // (2 000 samples are 250 reads at 50 ms: about 15 s even on a loaded machine; 10 000 took over 90 s there).
      now: () => (t += 1),
      onSamples: (b) => {
        samples += b.length;
        maxOpen = Math.max(maxOpen, stream.openNow);
      },
      onState: (s) => states.push(s),
    });
    stream.start();
    let checked = false;
    const enough = () => {
      if (!checked && samples > 500) {
        assert.equal(smiCount(), 1, 'one nvidia-smi on the box');
        checked = true;
      }
      return samples >= 2_000;
    };
    await until('2 000 samples', enough, 90000, 250, () => `${samples} samples`);
    assert.equal(stream.channelsOpened, 1, 'one channel for the whole stream');
    assert.equal(maxOpen, 1);
    assert.deepEqual(stream.window.gpus(), [0, 1, 2, 3, 4, 5, 6, 7]);
    const g0 = stream.window.samples(0).at(-1)!;
    assert.deepEqual({ util: g0.util, memUsed: g0.memUsed, power: g0.power, temp: g0.temp }, { util: 97, memUsed: 30000, power: 350.5, temp: 71 });
    assert.equal(stream.window.idleSeconds, 0, 'half the GPUs busy: not idle');

    // Idle ticks count as idle time; then the box's nvidia-smi dies and the stream comes back.
    sshd.runAsUser('touch "$HOME/smi-idle"');
    const before = samples;
    await until('800 idle samples', () => samples >= before + 800, 60000, 100, () => `${samples - before}`);
    assert.ok(stream.window.idleSeconds > 0, 'idle time counted');
    const pid = sshd.runAsUser('cat "$HOME/smi.pid"').trim();
    sshd.runAsUser(`kill ${pid}`);
    await until('the stream to resume on a new channel', () => stream.channelsOpened >= 2, 20000, 100);
    assert.equal(stream.channelsOpened, 2, 'resumed on a new channel');
    const after = samples;
    await until('80 samples after the resume', () => samples >= after + 80, 60000, 100, () => `${samples - after}`);
    assert.ok(states.includes('reconnecting'));
    assert.equal(maxOpen, 1, 'never two at once');
    await stream.stop();
    assert.equal(stream.openNow, 0);
    await until('stop to end nvidia-smi on the box', () => smiCount() === 0, 10000, 100);
    assert.equal(states.at(-1), 'stopped');
  });

  it('a hostile nvidia-smi: a flood of 100 000 lines with Infinity, NaN, 1.7e308 W and 40 GPUs stays at the caps', async () => {
    // The flood, then one plain line to say it is over, then quiet (the stream stays open).
    const HOSTILE = `#!/bin/sh
awk 'BEGIN { big = sprintf("17%0307d", 0); for (i = 0; i < 100000; i++) printf "%d, %s, 30000, 81559, %s, 71\\n", i % 40, (i % 2 ? "Infinity" : "NaN"), big; print "0, 5, 1, 2, 3, 4"; fflush() }'
exec sleep 600
`;
    sshd.runAsUser(`cat > "$HOME/bin/nvidia-smi" <<'EOF_SMI'\n${HOSTILE}EOF_SMI\nchmod +x "$HOME/bin/nvidia-smi"`);
    let posted = 0;
    let biggest = 0;
    const stream = new GpuStream(async () => conn, {
      intervalMs: 50,
      onSamples: (b) => {
        posted += b.length;
        biggest = Math.max(biggest, b.length);
      },
    });
    const t0 = Date.now();
    stream.start();
    await until('the flood read to its end', () => stream.window.samples(0).at(-1)?.util === 5, 90000, 100);
    const seconds = (Date.now() - t0) / 1000;
    await stream.stop();
    assert.equal(stream.window.samples(0).at(-1)?.util, 5, 'the flood was read to its end');
    assert.equal(stream.window.gpus().length, 32, 'GPUs past the cap are not followed');
    for (const g of stream.window.gpus()) {
      const list = stream.window.samples(g);
      assert.ok(list.length <= Math.ceil(seconds) + 1, `GPU ${g}: ${list.length} samples in ${seconds.toFixed(1)} s`);
      for (const x of list) if (x.util !== 5) assert.deepEqual([x.util, x.power, x.memUsed], [null, null, 30000]);
    }
    assert.ok(posted <= 32 * (Math.ceil(seconds) + 1), `${posted} samples posted in ${seconds.toFixed(1)} s`);
    assert.ok(biggest <= 32, `a batch of ${biggest}`);
    console.log(`      flood of 100 000 lines read in ${seconds.toFixed(1)} s: ${posted} samples posted, ${stream.window.samples(1).length} kept for GPU 1`);
  });
});
