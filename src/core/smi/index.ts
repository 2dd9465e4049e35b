// parseNvidiaSmi: one entry point for whatever nvidia-smi printed. It sniffs the format
// (XML, CSV, the default table, `-q` text, `--version`), recognises failure messages, and
// never throws: garbage in gives { ok: false } with a kind that says what went wrong.
import { parseCsv, parseUnlabeledCsv, looksLikeCsv, SMI_QUERY_FIELDS, SMI_QUERY_FIELDS_LEGACY } from './csv';
import { detectFailure } from './failure';
import { parseQueryText, looksLikeQueryText } from './qtext';
import { parseTable, looksLikeTable } from './table';
import type { SmiFailure, SmiResult } from './types';
import { parseGpuList } from './list';
import { cudaVersion, driverVersion } from './values';
import { looksLikeXml, parseXml } from './xml';
import { capLines } from '../boxLines';

export type { SmiFailure, SmiFailureKind, SmiFormat, SmiGpu, SmiMigDevice, SmiPartial, SmiProcess, SmiReport, SmiResult } from './types';
export { SMI_QUERY_ARGS, SMI_QUERY_ARGS_LEGACY, SMI_QUERY_FIELDS, SMI_QUERY_FIELDS_LEGACY } from './csv';

/**
 * One shell line for a remote probe: the CSV query, falling back to the legacy field list on
 * drivers that reject compute_cap. Its output (either branch, or a failure message) goes to
 * parseNvidiaSmi as is.
 */
export const SMI_QUERY_COMMAND = 'nvidia-smi --query-gpu=' + SMI_QUERY_FIELDS.join(',') + ' --format=csv,nounits 2>&1 || nvidia-smi --query-gpu=' + SMI_QUERY_FIELDS_LEGACY.join(',') + ' --format=csv,nounits 2>&1';

const INVALID_FIELD = /^.*is not a valid field to query.*$\r?\n?|^.*nvidia-smi --help-query-gpu.*$\r?\n?/gm;

/** The longest text parsed: an 8-GPU `-q -x` report is about 100 KB; more is not nvidia-smi output. */
export const SMI_MAX_CHARS = 16 * 1024 * 1024;

export function parseNvidiaSmi(input: string): SmiResult {
  try {
    if (typeof input === 'string' && input.length > SMI_MAX_CHARS) return { ok: false, error: { kind: 'unrecognized', message: `more than ${SMI_MAX_CHARS / 1024 / 1024} MiB of text: not an nvidia-smi output` } };
    return sniff(typeof input === 'string' ? capLines(input) : '');
  } catch (err) {
    // The parsers are written not to throw; this is the last guard for the promise in the header.
    return { ok: false, error: { kind: 'unrecognized', message: `could not read the output (${err instanceof Error ? err.message : 'error'})` } };
  }
}

/**
 * Output quoted in a Markdown code block or a log arrives indented as a whole; nvidia-smi
 * itself starts its top-level lines (table borders, "GPU 0000…", <nvidia_smi_log>) at column 0.
 */
function dedent(text: string): string {
  // The common case (the first non-blank line starts at column 0) costs one short regex scan.
  const first = /^[ \t]*(?=\S)/m.exec(text);
  if (!first || first[0].length === 0) return text;
  const lines = text.split('\n');
  let min = Infinity;
  for (const l of lines) {
    if (l.trim() === '') continue;
    const n = /^[ \t]*/.exec(l)![0].length;
    if (n < min) min = n;
    if (min === 0) return text;
  }
  if (!Number.isFinite(min)) return text;
  return lines.map((l) => l.slice(Math.min(min, /^[ \t]*/.exec(l)![0].length))).join('\n');
}

function sniff(raw: string): SmiResult {
  const input = dedent(raw.replace(/^\uFEFF/, ''));
  if (looksLikeXml(input)) return parseXml(input);
  if (looksLikeTable(input) && /^[ \t]*[|+]/m.test(input)) {
    const failure = detectFailure(input);
    if (failure?.kind === 'gpu-lost') return tableWithLostGpus(input, failure);
    if (failure && failure.kind !== 'no-devices') return { ok: false, error: failure };
    return parseTable(input);
  }
  if (looksLikeCsv(input)) return parseCsv(input);
  const afterCommand = csvAfterCommandLine(input);
  if (afterCommand !== null) return parseCsv(afterCommand);
  // SMI_QUERY_COMMAND on an old driver: the rejected query's message, then the legacy CSV.
  const withoutRejection = input.replace(INVALID_FIELD, '');
  if (withoutRejection !== input && looksLikeCsv(withoutRejection)) return parseCsv(withoutRejection);
  const failure = detectFailure(input);
  if (failure) return { ok: false, error: failure };
  const invalidField = /Field "([^"]+)" is not a valid field to query/i.exec(input);
  if (invalidField) return { ok: false, error: { kind: 'unrecognized', message: invalidField[0] } };
  if (looksLikeQueryText(input)) return parseQueryText(input);
  const list = parseGpuList(input);
  if (list) return list;
  const version = parseVersion(input);
  if (version) return version;
  const noheader = parseNoHeaderCsv(input) ?? parseUnlabeledCsv(input);
  if (noheader) return noheader;
  if (/^\s*<\?xml|^\s*<!DOCTYPE nvidia_smi_log/.test(input)) return { ok: false, error: { kind: 'truncated', message: 'the XML stops before <nvidia_smi_log>' } };
  if (/^\s*(\w{3} \w{3}\s+\d+ [\d:]+ \d{4}\s*)?\+-{10,}/.test(input)) return { ok: false, error: { kind: 'truncated', message: 'the table stops before its header' } };
  return { ok: false, error: { kind: 'unrecognized', message: 'not nvidia-smi output (no table, CSV header or XML log)' } };
}

// GPU name and bus id, then the reason; the spaces around each are trimmed in code (no two quantifiers share a run).
const LOST_LINE = /^[ \t]*Unable to determine the device handle for (GPU[^:\n]*)(:[ \t]*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])?:(.*)$/gm;

/**
 * A table printed after "Unable to determine the device handle for GPU1: …: Unknown Error": the
 * GPUs that answered, with the lost ones named. No GPU in the table: the gpu-lost failure.
 */
function tableWithLostGpus(input: string, failure: SmiFailure): SmiResult {
  const lost = [...input.matchAll(LOST_LINE)].map((m) => ({ gpu: `${m[1]!.trim()}${m[2] ?? ''}`.slice(0, 100), reason: m[3]!.trim().slice(0, 200) }));
  if (lost.length === 0) return { ok: false, error: failure };
  const rest = parseTable(input.replace(LOST_LINE, ''));
  if (!rest.ok || rest.report.gpus.length === 0) return { ok: false, error: failure };
  rest.report.partial = { ...rest.report.partial, lostGpus: lost };
  return rest;
}

/** `nvidia-smi --version` (drivers ≥ 525): driver and CUDA, no GPUs. */
function parseVersion(input: string): SmiResult | null {
  const drv = /^[ \t]*(?:DRIVER|KMD) version[ \t]*:[ \t]*(\d[\d.]*)/im.exec(input);
  const cuda = /^[ \t]*CUDA (?:UMD )?Version[ \t]*:[ \t]*(\S+)/im.exec(input);
  if (!/^[ \t]*NVIDIA-SMI version[ \t]*:/im.test(input) || (!drv && !cuda)) return null;
  return { ok: true, report: { format: 'version', driverVersion: driverVersion(drv?.[1]), cudaVersion: cudaVersion(cuda?.[1]), gpus: [], processes: [] } };
}

/** `--format=csv,noheader`: only when the rows have exactly our field list's shape. */
function parseNoHeaderCsv(input: string): SmiResult | null {
  const rows = input.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (rows.length === 0) return null;
  for (const fields of [SMI_QUERY_FIELDS, SMI_QUERY_FIELDS_LEGACY] as const) {
    const uuidAt = fields.indexOf('uuid' as never);
    const ok = rows.every((r) => {
      const c = r.split(',').map((x) => x.trim());
      return c.length === fields.length && /^(GPU|MIG)-[0-9a-f-]+$/i.test(c[uuidAt] ?? '') && /^\d+$/.test(c[0] ?? '');
    });
    if (ok) return parseCsv(input, { assumeFields: fields });
  }
  return null;
}

/** A CSV pasted with the command that printed it ("$ nvidia-smi --query-gpu=… --format=csv" first). */
function csvAfterCommandLine(input: string): string | null {
  const lines = input.split(/\r?\n/);
  let seenCommand = false;
  for (let i = 0; i < lines.length && i < 6; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (looksLikeCsv(line)) return seenCommand ? lines.slice(i).join('\n') : null;
    if (!/nvidia-smi\b.*--format[= ]csv/.test(line)) return null;
    seenCommand = true;
  }
  return null;
}
