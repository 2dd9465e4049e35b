// The GPU monitor's stream on a real box: one exec channel for 10 000 samples (8 GPUs, time
// compressed: the stand-in nvidia-smi prints its -lms interval five times faster), never a
// second one open at once, idle time counted, a killed nvidia-smi resumed on a new channel,
// and stop() closes it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RemoteConnection } from '../../src/remote/connection';
import { GpuStream } from '../../src/app/runs/gpuStream';
import { startSshd, type TestSshd } from '../support/sshd';
import { connectionTo, sleep, tempDir } from './remote-helpers';

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

  it('10 000 samples over one channel; a killed nvidia-smi is resumed; stop closes it', async () => {
    let samples = 0;
    let maxOpen = 0;
    let t = 0;
    const states: string[] = [];
    const stream = new GpuStream(async () => conn, {
      intervalMs: 50,
      retryMs: 200,
      now: () => (t += 0.05 / 8),
      onSamples: (b) => {
        samples += b.length;
        maxOpen = Math.max(maxOpen, stream.openNow);
      },
      onState: (s) => states.push(s),
    });
    stream.start();
    const until = Date.now() + 90000;
    let checked = false;
    while (samples < 10_000 && Date.now() < until) {
      await sleep(250);
      if (!checked && samples > 2000) {
        assert.equal(smiCount(), 1, 'one nvidia-smi on the box');
        checked = true;
      }
    }
    assert.ok(samples >= 10_000, `${samples} samples`);
    assert.equal(stream.channelsOpened, 1, 'one channel for the whole stream');
    assert.equal(maxOpen, 1);
    assert.deepEqual(stream.window.gpus(), [0, 1, 2, 3, 4, 5, 6, 7]);
    const g0 = stream.window.samples(0).at(-1)!;
    assert.deepEqual({ util: g0.util, memUsed: g0.memUsed, power: g0.power, temp: g0.temp }, { util: 97, memUsed: 30000, power: 350.5, temp: 71 });
    assert.equal(stream.window.idleSeconds, 0, 'half the GPUs busy: not idle');

    // Idle ticks count as idle time; then the box's nvidia-smi dies and the stream comes back.
    sshd.runAsUser('touch "$HOME/smi-idle"');
    const before = samples;
    while (samples < before + 800) await sleep(100);
    assert.ok(stream.window.idleSeconds > 0, 'idle time counted');
    const pid = sshd.runAsUser('cat "$HOME/smi.pid"').trim();
    sshd.runAsUser(`kill ${pid}`);
    const resumedBy = Date.now() + 20000;
    while (stream.channelsOpened < 2 && Date.now() < resumedBy) await sleep(100);
    assert.equal(stream.channelsOpened, 2, 'resumed on a new channel');
    const after = samples;
    while (samples < after + 80) await sleep(100);
    assert.ok(states.includes('reconnecting'));
    assert.equal(maxOpen, 1, 'never two at once');
    await stream.stop();
    assert.equal(stream.openNow, 0);
    await sleep(500);
    assert.equal(smiCount(), 0, 'stop ends nvidia-smi on the box');
    assert.equal(states.at(-1), 'stopped');
  });
});
