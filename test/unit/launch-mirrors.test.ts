// The launch's mirrors (issue 44 deliver 2): the task file's `mirrors:` key read and checked, and
// the plan the setup step applies from the box's probe (core/task/mirrors.ts) with the line it says.
import { strict as assert } from 'node:assert';
import { mirrorPlan, mirrorFinding, mirrorsNeedProbe, MIRRORS_AUTO, turboLine } from '../../src/core/task/mirrors';
import { parseTaskFile } from '../../src/core/task/schema';
import { networkAdvice, type EndpointReach } from '../../src/core/workspace';
import { mirrorsLine } from '../../src/app/launch/mirrors';
import { ENGLISH } from '../../src/core/l10n';
import { inZh } from '../support/l10n';

const reach = (hf: number | null, mirror: number | null, pip: number | null, cn: number | null, s: { hf?: number; mirror?: number; pip?: number; cn?: number } = {}): EndpointReach[] => [
  { id: 'hf', url: 'https://huggingface.co', status: hf, seconds: hf ? (s.hf ?? 0.3) : null },
  { id: 'hfMirror', url: 'https://hf-mirror.com', status: mirror, seconds: mirror ? (s.mirror ?? 0.3) : null },
  { id: 'modelscope', url: 'https://www.modelscope.cn', status: null, seconds: null },
  { id: 'pip', url: 'https://pypi.org/simple/', status: pip, seconds: pip ? (s.pip ?? 0.3) : null },
  { id: 'pipMirror', url: 'https://mirrors.aliyun.com/pypi/simple/', status: cn, seconds: cn ? (s.cn ?? 0.3) : null },
];
const found = (r: EndpointReach[], turbo = false) => mirrorFinding(networkAdvice(r, turbo), r);

function task(yaml: string) {
  const r = parseTaskFile(`name: t\nrun: python train.py\n${yaml}`);
  return r;
}

describe('launch mirrors', () => {
  describe('the task file key', () => {
    it('absent: auto (no mirrors field); auto, off, and per part', () => {
      const none = task('');
      assert.ok(none.ok && none.tasks[0]!.mirrors === undefined);
      const off = task('mirrors: off\n');
      assert.ok(off.ok);
      assert.deepEqual(off.tasks[0]!.mirrors, { hfEndpoint: 'direct', pipIndex: 'default', turbo: 'off' });
      const parts = task('mirrors:\n  hf_endpoint: https://hf-mirror.com\n  turbo: off\n');
      assert.ok(parts.ok);
      assert.deepEqual(parts.tasks[0]!.mirrors, { hfEndpoint: 'https://hf-mirror.com', pipIndex: 'auto', turbo: 'off' });
    });
    it('a value that is not a word or an http(s) URL is refused with its line and field', () => {
      const bad = task('mirrors:\n  pip_index: "https://x.cn/simple; rm -rf ~"\n');
      assert.ok(!bad.ok);
      assert.equal(bad.errors[0]!.line, 4);
      assert.match(bad.errors[0]!.message, /mirrors\.pip_index is auto, default or an http\(s\) URL/);
      const word = task('mirrors: sometimes\n');
      assert.ok(!word.ok);
      assert.match(word.errors[0]!.message, /mirrors is one of auto, off/);
      const key = task('mirrors:\n  hf: direct\n');
      assert.ok(!key.ok);
    });
  });

  describe('the plan', () => {
    it('direct hosts unreached: hf-mirror and the Chinese pip index, the turbo for setup, each said', () => {
      const p = mirrorPlan(MIRRORS_AUTO, {}, found(reach(null, 200, null, 200), true));
      assert.deepEqual(p.env, { HF_ENDPOINT: 'https://hf-mirror.com', PIP_INDEX_URL: 'https://mirrors.aliyun.com/pypi/simple/' });
      assert.equal(p.turbo, true);
      const line = mirrorsLine(p, '', ENGLISH)!;
      assert.equal(line, 'setup: mirrors: HF_ENDPOINT=https://hf-mirror.com (Hugging Face is not reached from the box); PIP_INDEX_URL=https://mirrors.aliyun.com/pypi/simple/ (the default pip index is not reached from the box); /etc/network_turbo sourced for setup only, not for the run');
      assert.match(mirrorsLine(p, '', inZh)!, /^准备环境：镜像：HF_ENDPOINT=https:\/\/hf-mirror\.com（从实例访问不到 Hugging Face）/);
    });
    it('direct hosts reached: nothing set, and it says so', () => {
      const p = mirrorPlan(MIRRORS_AUTO, {}, found(reach(200, 200, 200, 200)));
      assert.deepEqual(p.env, {});
      assert.equal(p.turbo, false);
      assert.equal(mirrorsLine(p, '', ENGLISH), 'setup: mirrors: Hugging Face answers directly: no HF_ENDPOINT; the default pip index answers: no PIP_INDEX_URL');
    });
    it('a default reached but far slower: the mirror, said as slower', () => {
      const p = mirrorPlan(MIRRORS_AUTO, {}, found(reach(200, 200, 200, 200, { pip: 3, cn: 0.2 })));
      assert.deepEqual(p.env, { PIP_INDEX_URL: 'https://mirrors.aliyun.com/pypi/simple/' });
      assert.match(mirrorsLine(p, '', ENGLISH)!, /far slower/);
    });
    it("the task's env wins and the task's mirrors override the probe", () => {
      const env = { HF_ENDPOINT: 'https://my.mirror' };
      assert.equal(mirrorsNeedProbe({ ...MIRRORS_AUTO, turbo: 'off', pipIndex: 'default' }, env), false);
      const p = mirrorPlan({ hfEndpoint: 'auto', pipIndex: 'https://pypi.tuna.tsinghua.edu.cn/simple', turbo: 'off' }, env, found(reach(null, 200, null, 200), true));
      assert.deepEqual(p.env, { PIP_INDEX_URL: 'https://pypi.tuna.tsinghua.edu.cn/simple' });
      assert.equal(p.turbo, false);
      assert.equal(mirrorsLine(p, ' on b', ENGLISH), "setup on b: mirrors: HF_ENDPOINT from the task's env; PIP_INDEX_URL=https://pypi.tuna.tsinghua.edu.cn/simple (the task's mirrors)");
    });
    it('a failed probe sets nothing and says why', () => {
      const p = mirrorPlan(MIRRORS_AUTO, {}, undefined, 'timed out');
      assert.deepEqual(p.env, {});
      assert.equal(mirrorsLine(p, '', ENGLISH), "setup: mirrors: the box's network probe failed (timed out); nothing set from it");
    });
    it('the turbo line is quoted and cannot stop the step', () => {
      assert.equal(turboLine(), "if [ -f '/etc/network_turbo' ]; then . '/etc/network_turbo' || true; fi");
    });
  });
});
