// The parsers never throw and never produce NaN: truncated real outputs, shuffled lines and
// random bytes give a failure result (or, where the damage spares everything, a report).
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseNvidiaSmi, type SmiResult } from '../../src/core/smi';
import { parseTorchProbe, PROBE_BEGIN, PROBE_END } from '../../src/core/probe';
import { diagnose } from '../../src/core/doctor';
import { describeDiagnosis } from '../../src/core/doctor-text';
import { NVIDIA_SMI_DIR } from '../support/fixtures';

const DIR = NVIDIA_SMI_DIR;
const FILES = readdirSync(DIR).filter((f) => f !== 'SOURCES.md');
const TEXTS = FILES.map((f) => readFileSync(join(DIR, f), 'utf8'));
const KINDS = new Set(['no-driver', 'nvml-mismatch', 'gpu-lost', 'no-devices', 'not-found', 'empty', 'truncated', 'unrecognized']);

function wellFormed(r: SmiResult): void {
  if (!r.ok) {
    assert.ok(KINDS.has(r.error.kind), r.error.kind);
    assert.equal(typeof r.error.message, 'string');
    return;
  }
  assert.ok(Array.isArray(r.report.gpus) && Array.isArray(r.report.processes));
  const walk = (v: unknown): void => {
    if (typeof v === 'number') assert.ok(Number.isFinite(v), 'NaN or Infinity in the report');
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(r.report);
}

const text = fc.constantFrom(...TEXTS);

describe('fuzzing the nvidia-smi parsers', () => {
  it('random strings and random bytes: a result, never a throw', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 }), fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a).toString('latin1'))), (s) => {
        wellFormed(parseNvidiaSmi(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('any prefix of a real output: a result, never a throw', () => {
    fc.assert(
      fc.property(text, fc.double({ min: 0, max: 1, noNaN: true }), (t, f) => {
        wellFormed(parseNvidiaSmi(t.slice(0, Math.floor(t.length * f))));
      }),
      { numRuns: 1500 },
    );
  });

  it('an XML log cut anywhere before </nvidia_smi_log> is never a report', () => {
    const xmls = TEXTS.filter((t) => t.includes('<nvidia_smi_log>'));
    fc.assert(
      fc.property(fc.constantFrom(...xmls), fc.double({ min: 0, max: 1, noNaN: true }), (t, f) => {
        const end = t.indexOf('</nvidia_smi_log>');
        const r = parseNvidiaSmi(t.slice(0, Math.floor(end * f)));
        assert.equal(r.ok, false);
      }),
      { numRuns: 800 },
    );
  });

  it('a default table cut inside its GPU rows is never a report', () => {
    const tables = TEXTS.filter((t) => /Driver Version:|KMD Version:/.test(t) && t.includes('|'));
    fc.assert(
      fc.property(fc.constantFrom(...tables), fc.double({ min: 0, max: 1, noNaN: true }), (t, f) => {
        const head = t.search(/^\|=+\+/m);
        // The GPU rows end with the separator line before the first line that is not table.
        const after = t.slice(head).search(/\n(?![|+])/);
        const lastSep = t.lastIndexOf('\n+', head + after);
        const cut = head + Math.floor((lastSep + 1 - head) * f);
        // Cut right after a GPU's closing border, the text is a complete table of fewer GPUs.
        fc.pre(!/\n\+[-+]+\+\n?$/.test(t.slice(0, cut)));
        const r = parseNvidiaSmi(t.slice(0, cut));
        assert.equal(r.ok, false, `cut at ${cut} of ${t.length}`);
      }),
      { numRuns: 800 },
    );
  });

  it('shuffled lines and spliced garbage: a result, never a throw', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 60 }), fc.string({ maxLength: 40 }), fc.nat(), (t, swaps, junk, at) => {
        const lines = t.split('\n');
        for (let i = 0; i + 1 < swaps.length; i += 2) {
          const a = swaps[i]! % lines.length;
          const b = swaps[i + 1]! % lines.length;
          [lines[a], lines[b]] = [lines[b]!, lines[a]!];
        }
        const joined = lines.join('\n');
        const p = at % (joined.length + 1);
        wellFormed(parseNvidiaSmi(joined.slice(0, p) + junk + joined.slice(p)));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('fuzzing the probe parser', () => {
  it('random text, and random JSON between the markers: a result, never a throw', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.json().map((j) => `noise\n${PROBE_BEGIN}${j}${PROBE_END}\n`)), (s) => {
        const r = parseTorchProbe(s);
        if (r.ok) assert.ok(r.probe.deviceCapability === null || /^\d+\.\d+$/.test(r.probe.deviceCapability));
        else assert.ok(['no-python', 'python-too-old', 'no-output', 'malformed'].includes(r.error.kind));
      }),
      { numRuns: 1500 },
    );
  });
});

describe('fuzzing diagnose', () => {
  it('any strings in any field: a verdict, never a throw', () => {
    const verdicts = new Set(['ok', 'driver-too-old', 'arch-not-in-wheel', 'cpu-only-torch', 'cuda-init-failed', 'nvml-mismatch', 'no-driver', 'no-gpu', 'no-torch', 'torch-broken', 'not-nvidia', 'gpu-lost', 'unknown']);
    // Inputs never spell NaN or undefined themselves: a GPU named "NaN" is rightly echoed, and
    // the check below is for the ones our own formatting would make.
    const v = fc.oneof(fc.string({ maxLength: 20 }).filter((s) => !/NaN|undefined/.test(s)), fc.constantFrom('535.54.03', '12.1', '2.1.0+cu121', '1.13.1', '8.6', 'RTX 3090', '470.82.01', '11.4'));
    fc.assert(
      fc.property(fc.record({ driverVersion: v, driverMaxCuda: v, torchVersion: v, gpuName: v, computeCapability: v }, { requiredKeys: [] }), fc.constantFrom(...TEXTS), (input, smiText) => {
        const smi = parseNvidiaSmi(smiText);
        const d = diagnose({ ...input, smi: smi.ok ? smi.report : smi.error });
        assert.ok(verdicts.has(d.verdict), d.verdict);
        assert.ok(!/NaN|undefined/.test(describeDiagnosis(d, 'en') + describeDiagnosis(d, 'zh-cn')));
      }),
      { numRuns: 1500 },
    );
  });
});
