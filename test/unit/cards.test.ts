// Card specs and name matching: aliases people type, and the product names nvidia-smi prints
// (including the real fixtures).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cardSpecs, findCard, findCardWithMemory, specSource } from '../../src/core/cards';
import { NVIDIA_SMI_DIR } from '../support/fixtures';

const SMI = NVIDIA_SMI_DIR;

describe('cards', () => {
  it('has the report\'s 3090 and 4090 figures, with the report as their source', () => {
    const c3090 = findCard('3090')!;
    const c4090 = findCard('4090')!;
    assert.equal(c3090.fp16Tflops, 35.6);
    assert.equal(c3090.memoryBandwidthGBs, 936);
    assert.equal(c4090.fp16Tflops, 82.6);
    assert.equal(c4090.memoryBandwidthGBs, 1008);
    assert.equal(c3090.vramGb, 24);
    assert.equal(c4090.vramGb, 24);
    assert.match(specSource(c4090, 'fp16Tflops'), /field report §3/);
    assert.match(specSource(findCard('t4')!, 'memoryBandwidthGBs'), /vendor/);
    // "比 3090 的 35.6 TFLOPS 高了一倍多"
    assert.ok(c4090.fp16Tflops! / c3090.fp16Tflops! > 2);
  });

  it('covers every card the issue lists, with complete specs', () => {
    for (const id of ['t4', 'v100-16g', 'rtx2080ti', 'rtx3090', 'rtx4090', 'a100-80g', 'h800', 'ascend-910b', 'a100-40g', 'h100', 'a10', 'l20', 'l40s', 'rtx3080', 'v100-32g']) {
      const c = cardSpecs.find((x) => x.id === id);
      assert.ok(c, id);
      assert.ok(c.vramGb > 0 && c.memoryBandwidthGBs > 0, id);
      if (c.cuda) {
        assert.match(c.computeCapability ?? '', /^\d+\.\d$/, id);
        assert.ok((c.fp16Tflops ?? 0) > 0, id);
      }
    }
    const ascend = findCard('Ascend 910B')!;
    assert.equal(ascend.cuda, false);
    assert.equal(ascend.computeCapability, null);
  });

  it('matches aliases and nvidia-smi product names', () => {
    const cases: [string, string][] = [
      ['4090', 'rtx4090'],
      ['rtx4090', 'rtx4090'],
      ['RTX 4090', 'rtx4090'],
      ['NVIDIA GeForce RTX 4090', 'rtx4090'],
      ['NVIDIA GeForce RTX 3090', 'rtx3090'],
      ['Tesla T4', 't4'],
      ['NVIDIA A100-SXM4-80GB', 'a100-80g'],
      ['NVIDIA A100 80GB PCIe', 'a100-80g'],
      ['NVIDIA A100-SXM4-40GB', 'a100-40g'],
      ['NVIDIA A100-PCIE-40GB', 'a100-40g'],
      ['A100-80G', 'a100-80g'],
      ['Tesla V100-SXM2-16GB', 'v100-16g'],
      ['Tesla V100-SXM2-32GB', 'v100-32g'],
      ['Tesla V100-PCIE-32GB', 'v100-32g'],
      ['NVIDIA H800', 'h800'],
      ['NVIDIA H100 80GB HBM3', 'h100'],
      ['NVIDIA H100 PCIe', 'h100'],
      ['NVIDIA GeForce RTX 2080 Ti', 'rtx2080ti'],
      ['2080ti', 'rtx2080ti'],
      ['NVIDIA A10', 'a10'],
      ['NVIDIA L40S', 'l40s'],
      ['Ascend910B', 'ascend-910b'],
    ];
    for (const [name, id] of cases) assert.equal(findCard(name)?.id, id, name);
  });

  it('does not guess for cards it does not know', () => {
    for (const name of ['NVIDIA GeForce RTX 2080', 'NVIDIA GeForce RTX 2070', 'NVIDIA GeForce RTX 3090 Ti', 'NVIDIA TITAN V', 'Tesla P100-PCIE-16GB', 'NVIDIA GeForce GTX 1660 Ti', '', '   ', 'xyz', 'nvidia']) {
      assert.equal(findCard(name), undefined, name);
    }
    assert.equal(findCard(undefined as unknown as string), undefined);
  });

  it('uses memory to tell variants apart when the table view truncates the name', () => {
    assert.equal(findCardWithMemory('Tesla V100-SXM2...', 32768)?.id, 'v100-32g');
    assert.equal(findCardWithMemory('Tesla V100-SXM2...', 16160)?.id, 'v100-16g');
    assert.equal(findCardWithMemory('NVIDIA A100-SXM4-80GB', 81920)?.id, 'a100-80g');
    assert.equal(findCardWithMemory('NVIDIA A100', 40960)?.id, 'a100-40g');
    assert.equal(findCardWithMemory('NVIDIA GeForce RTX 4090', undefined)?.id, 'rtx4090');
  });

  it('recognises every product name in the real nvidia-smi fixtures that it has specs for', () => {
    const names = new Set<string>();
    for (const f of readdirSync(SMI)) {
      const text = readFileSync(join(SMI, f), 'utf8');
      for (const m of text.matchAll(/<product_name>([^<]+)<\/product_name>/g)) names.add(m[1]!.trim());
      if (f.endsWith('.csv')) {
        const [head, ...lines] = text.trim().split('\n');
        const col = (head ?? '').split(',').map((h) => h.trim()).indexOf('name');
        if (col !== -1) for (const l of lines) names.add(l.split(',')[col]!.trim());
      }
    }
    const expected: Record<string, string | undefined> = {
      'NVIDIA GeForce RTX 3090': 'rtx3090',
      'NVIDIA GeForce RTX 4090': 'rtx4090',
      'Tesla T4': 't4',
      'NVIDIA A100-SXM4-40GB': 'a100-40g',
      'NVIDIA H100 80GB HBM3': 'h100',
    };
    for (const [name, id] of Object.entries(expected)) {
      assert.ok(names.has(name), `fixture name ${name} present`);
      assert.equal(findCard(name)?.id, id, name);
    }
    for (const name of names) if (!(name in expected)) assert.equal(findCard(name), undefined, `${name} is not a card we have specs for`);
  });
});
