// Why a run ended, on real tails: every file in test/fixtures/training-logs/real/failures (copied
// from public issue threads, SOURCES.md names each) gives the cause a careful reader gets and
// quotes the message line (truth.json), never a `File "…", line N` or `frame #N:` stack frame.
// Also: the remedies (en, zh-cn) for every cause, and a quoted line stays bounded.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { detectCause, END_CAUSE_KINDS, MAX_CAUSE_LINE, type EndCause } from '../../src/core/progress';
import { causeRemedies, causeSummary } from '../../src/core/progress/causeText';
import { bestCpuMs } from '../support/timing';

const DIR = resolve(__dirname, '..', 'fixtures', 'training-logs', 'real', 'failures');
interface Truth {
  file: string;
  kind: EndCause['kind'];
  line: string;
  says: string;
}
const truth: Truth[] = JSON.parse(readFileSync(join(DIR, 'truth.json'), 'utf8'));

describe('end causes on real failure tails', () => {
  it('every tail in the folder has a truth row and a SOURCES.md row with its URL; at least 40 tails from 10 repositories', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.log')).sort();
    assert.deepEqual(truth.map((t) => t.file).sort(), files);
    const sources = readFileSync(join(DIR, 'SOURCES.md'), 'utf8');
    const repos = new Set<string>();
    for (const f of files) {
      const row = sources.split('\n').find((l) => l.startsWith(`| ${f} |`));
      assert.ok(row, `${f} has no SOURCES.md row`);
      const m = /\| ([\w.-]+\/[\w.-]+) \| (https:\/\/github\.com\/\S+\/(?:issues|pull)\/\d+) \|/.exec(row!);
      assert.ok(m && m[2]!.includes(`/${m[1]}/`), `${f}: the row names its repository and issue URL`);
      repos.add(m![1]!);
    }
    assert.ok(files.length >= 40, `${files.length} tails`);
    assert.ok(repos.size >= 10, `${repos.size} repositories`);
  });

  for (const t of truth) {
    it(`${t.file}: ${t.kind}, quoting “${t.says}”`, () => {
      const text = readFileSync(join(DIR, t.file), 'utf8');
      const c = detectCause(text, 1);
      assert.ok(c, 'a cause');
      assert.equal(c.kind, t.kind);
      assert.ok(c.line !== null);
      if (t.line.length <= MAX_CAUSE_LINE) assert.equal(c.line, t.line);
      else {
        assert.ok(t.line.includes(c.line) && c.line.length === MAX_CAUSE_LINE, `a window of the long line: ${c.line}`);
        assert.ok(c.line.includes(t.says), `the window keeps “${t.says}”: ${c.line}`);
      }
      assert.doesNotMatch(c.line, /^(?:\[rank\d+\]: *)?(?:File "|frame #\d+:)/);
      // The same tail fed through the end of a longer log (a 256 KiB scan) gives the same answer.
      assert.deepEqual(detectCause('step 1/10 loss 0.5\n'.repeat(2000) + text, 1), c);
      // A run that exited 0 has no cause, whatever its log says.
      assert.equal(detectCause(text, 0), null);
    });
  }

  it('a C++ frame that names a timeout is not quoted as the NCCL message; a tail of only the watchdog frames is still NCCL (issue 40)', () => {
    const tail = ['[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error', 'frame #3: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f in libtorch_cuda.so)'].join('\n');
    assert.deepEqual(detectCause(tail, 1), { kind: 'nccl', line: '[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error' });
    assert.deepEqual(detectCause('frame #3: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x1d2', 1), { kind: 'nccl', line: 'frame #3: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x1d2' });
    // Another failure's frames are not NCCL: only the watchdog's own names are read.
    assert.equal(detectCause('frame #3: c10d::ProcessGroupNCCL::allreduce(std::vector<at::Tensor>&) + 0x1d2', 1), null);
  });

  it('a host-memory kill on one rank wins over the NCCL timeout it leaves on the others', () => {
    const tail = ['[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.', 'ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 31631) of binary: /usr/bin/python3'].join('\n');
    assert.equal(detectCause(tail, 1)?.kind, 'hostOom');
  });

  it('remedies in English and Simplified Chinese for every cause; the disk remedy prices extra GB per day where the rate is known, ? where not', () => {
    for (const kind of END_CAUSE_KINDS) {
      const c = { kind, line: 'x' } as EndCause;
      for (const lang of ['en', 'zh-cn'] as const) {
        assert.ok(causeSummary(c, lang).length > 10, `${kind} ${lang}`);
        assert.ok(causeRemedies(c, lang).length >= 1, `${kind} ${lang} remedies`);
      }
      assert.match(causeRemedies(c, 'zh-cn').map((r) => r.text).join(''), /[\u4e00-\u9fff]/);
    }
    const oom = causeRemedies({ kind: 'cudaOom' }, 'en').map((r) => r.text).join(' ');
    assert.match(oom, /smaller batch.*gradient checkpointing.*4-bit QLoRA.*more VRAM/s);
    const disk = (rate?: number) => causeRemedies({ kind: 'diskFull' }, 'en', rate === undefined ? {} : { storageFenPerGbDay: rate }).find((r) => r.code === 'enlargeDisk')!.text;
    assert.match(disk(0.7), /50 GB more costs ¥0\.35\/day/);
    assert.match(disk(), /50 GB more costs \?\/day/);
    assert.match(causeRemedies({ kind: 'hostOom' }, 'en').map((r) => r.text).join(' '), /num_workers.*host RAM/s);
    assert.match(causeRemedies({ kind: 'nccl' }, 'en').map((r) => r.text).join(' '), /NCCL_DEBUG=INFO.*NCCL_SOCKET_IFNAME.*one node/s);
    assert.match(causeRemedies({ kind: 'noKernelImage' }, 'en', { computeCapability: '12.0' }).map((r) => r.text).join(' '), /sm_120/);
    assert.match(causeRemedies({ kind: 'cpuTorch' }, 'en').map((r) => r.text).join(' '), /CUDA build of PyTorch.*\+cpu/s);
    assert.match(causeRemedies({ kind: 'cpuTorch' }, 'zh-cn').map((r) => r.text).join(' '), /CUDA 版.*\+cpu/s);
    assert.match(causeRemedies({ kind: 'cudaOom' }, 'zh-cn').map((r) => r.text).join(' '), /nvidia-smi/);
  });

  it('a long line is quoted as a bounded window and the scan stays fast on a 256 KiB tail of near-misses', () => {
    const long = 'x'.repeat(5000) + ' RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB ' + 'y'.repeat(5000);
    const c = detectCause(long, 1)!;
    assert.equal(c.line!.length, MAX_CAUSE_LINE);
    assert.match(c.line!, /CUDA out of memory/);
    const noise = ('exitcode: -8 NCCL erro ProcessGroupNCC Watchdog caugh File "a", line 1 ' + 'k'.repeat(200) + '\n').repeat(1200);
    assert.equal(detectCause(noise, 1), null);
    const ms = bestCpuMs(() => detectCause(noise, 1));
    assert.ok(ms < 200, `${ms} ms CPU`);
    // Lines that repeat a pattern's start without its end (each was quadratic: 120–750 ms before the bounds).
    for (const line of ['ProcessGroupNCCL'.repeat(1000), 'Killed x'.repeat(2000), 'DataLoader worker (pid'.repeat(700)]) {
      const text = (line + '\n').repeat(16);
      assert.equal(detectCause(text, 1), null);
      const ms1 = bestCpuMs(() => detectCause(text, 1));
      assert.ok(ms1 < 60, `${line.slice(0, 16)}…: ${ms1} ms CPU`);
    }
  });
});
