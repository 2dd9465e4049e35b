// `gpu-rent smi FILE|- [--json]`: parse any nvidia-smi output (table, CSV, -q -x XML, -q
// text) into one model. A failure output (driver mismatch, no driver, …) exits 1.
import { open } from 'node:fs/promises';
import { UsageError } from '../args';
import type { CliCommand } from '../command';
import { parseNvidiaSmi, type SmiPartial, type SmiReport } from '../../core/smi';
import { forTerminal } from '../../core/text';
import { displayWidth } from '../../core/format';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { CliError, heads, t } from '../words';

/** The most of a file `smi` reads: a real nvidia-smi output of 8 GPUs is under 10 KiB. */
export const SMI_INPUT_MAX_BYTES = 16 * 1024 * 1024;

const specs = {
  json: { type: 'boolean', description: 'print the parsed model as JSON', zh: '以 JSON 输出解析结果' },
  lang: LANG_FLAG_SPEC,
} as const;

const USAGE = 'gpu-rent smi FILE|- [--json]';
const SUMMARY = 'Parse nvidia-smi output (default table, --query-gpu CSV, -q -x XML, -q text) from a file or stdin.';
const SUMMARY_ZH = '解析文件或标准输入中的 nvidia-smi 输出（默认表格、--query-gpu CSV、-q -x XML、-q 文本）。';

export async function readInput(path: string, readStdin: () => Promise<string>): Promise<string> {
  if (path === '-') return readStdin();
  try {
    const fh = await open(path, 'r');
    try {
      // Read at most the cap plus one byte: more than that is not an nvidia-smi output.
      const buf = Buffer.alloc(SMI_INPUT_MAX_BYTES + 1);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, null);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      if (got > SMI_INPUT_MAX_BYTES) throw Object.assign(new Error(`more than ${SMI_INPUT_MAX_BYTES / 1024 / 1024} MiB: not an nvidia-smi output`), { code: 'EFBIG' });
      return buf.subarray(0, got).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = (l: CliLang) => (code === 'ENOENT' ? t(l, 'no such file', '没有这个文件') : code === 'EISDIR' ? t(l, 'is a directory', '是一个目录') : code === 'EACCES' ? t(l, 'permission denied', '没有权限') : code === 'EFBIG' ? t(l, (err as Error).message, '超过 {0} MiB：不是 nvidia-smi 输出', SMI_INPUT_MAX_BYTES / 1024 / 1024) : (err as Error).message);
    throw new CliError(`cannot read ${path}: ${why('en')}`, `无法读取 ${path}：${why('zh-cn')}`);
  }
}

export function smiJson(report: SmiReport): unknown {
  return {
    format: report.format,
    driverVersion: report.driverVersion,
    cudaVersion: report.cudaVersion,
    gpus: report.gpus.map((g) => ({
      index: g.index,
      name: g.name,
      uuid: g.uuid,
      memoryTotalMiB: g.memoryTotalMiB,
      memoryUsedMiB: g.memoryUsedMiB,
      utilizationGpuPct: g.utilizationGpuPct,
      temperatureC: g.temperatureC,
      powerDrawW: g.powerDrawW,
      computeCapability: g.computeCapability,
      migMode: g.migMode,
      pciBusId: g.pciBusId,
      powerLimitW: g.powerLimitW,
      nameTruncated: g.nameTruncated,
      driverModel: g.driverModel,
      migDevices: g.migDevices,
    })),
    processes: report.processes,
    partial: report.partial ?? null,
  };
}

/** What an incomplete nvidia-smi output lacked, in words (box text: pass it through forTerminal). */
export function partialText(p: SmiPartial, lang: CliLang = 'en'): string {
  const parts: string[] = [];
  for (const l of p.lostGpus ?? []) parts.push(t(lang, '{0} did not answer ({1})', '{0} 没有应答（{1}）', l.gpu, l.reason));
  if (p.processesCut) parts.push(t(lang, 'the Processes table was cut off (processes not all listed)', 'Processes 表被截断（进程没有全部列出）'));
  return parts.join(lang === 'zh-cn' ? '；' : '; ');
}

const dash = (v: string | number | null, unit = ''): string => (v === null ? '-' : `${v}${unit}`);

export function smiText(report: SmiReport, lang: CliLang = 'en'): string {
  const n = report.gpus.length;
  const driver = forTerminal(report.driverVersion ?? t(lang, 'unknown', '未知'));
  const cuda = report.cudaVersion ? `≤ ${forTerminal(report.cudaVersion)}` : t(lang, 'not printed', '未显示');
  const lines = [
    lang === 'zh-cn' ? `nvidia-smi ${report.format}：驱动 ${driver}，CUDA ${cuda}，${n} 块 GPU` : `nvidia-smi ${report.format}: driver ${driver}, CUDA ${cuda}, ${n} GPU${n === 1 ? '' : 's'}`,
  ];
  if (n) {
    const rows = report.gpus.map((g) => [
      dash(g.index),
      forTerminal(g.name ?? '-'),
      g.memoryTotalMiB === null && g.memoryUsedMiB === null ? '-' : `${dash(g.memoryUsedMiB)}/${dash(g.memoryTotalMiB)} MiB`,
      dash(g.utilizationGpuPct, '%'),
      dash(g.temperatureC, 'C'),
      g.powerDrawW === null && g.powerLimitW === null ? '-' : `${dash(g.powerDrawW)}/${dash(g.powerLimitW)} W`,
      forTerminal(g.computeCapability ?? '-'),
      g.migMode ? `${g.migMode}${g.migDevices.length ? t(lang, ' ({0} devices)', '（{0} 个设备）', g.migDevices.length) : ''}` : '-',
    ]);
    lines.push(...table(heads(lang, [['GPU', 'GPU'], ['NAME', '名称'], ['MEMORY', '显存'], ['UTIL', '利用率'], ['TEMP', '温度'], ['POWER', '功率'], ['CC', '算力'], ['MIG', 'MIG']]), rows));
  }
  if (report.processes.length) {
    lines.push(t(lang, 'Processes:', '进程：'));
    const rows = report.processes.map((p) => [dash(p.gpuIndex ?? null), dash(p.pid), forTerminal(p.type ?? '-'), dash(p.usedMemoryMiB, ' MiB'), forTerminal(p.name || '-')]);
    lines.push(...table(heads(lang, [['GPU', 'GPU'], ['PID', 'PID'], ['TYPE', '类型'], ['MEMORY', '显存'], ['NAME', '名称']]), rows).map((l) => `  ${l}`));
  }
  if (report.partial) lines.push(t(lang, 'incomplete output: {0}', '输出不完整：{0}', forTerminal(partialText(report.partial, lang))));
  return lines.join('\n') + '\n';
}

function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const fmt = (r: string[]): string => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(Math.max(0, widths[i]! - displayWidth(c))))).join('  ').trimEnd();
  return [fmt(head), ...rows.map(fmt)];
}

export const command: CliCommand = defineCommand({
  name: 'smi',
  summary: 'Parse nvidia-smi output (any format) into one model',
  summaryZh: '把任意格式的 nvidia-smi 输出解析成统一的模型',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 1, names: 'FILE or -' },
  run: async (_flags, { io, lang, json, positionals }): Promise<SmiReport> => {
    const path = positionals[0];
    if (path === undefined) throw new UsageError('needs FILE (or - for standard input)', '需要 FILE（或用 - 表示标准输入）');
    const result = parseNvidiaSmi(await readInput(path, io.readStdin));
    // A failure output (driver mismatch, no driver, …): its kind is the code; under --json the document alone says it.
    if (!result.ok) throw new CliFailure(result.error.kind, result.error.message, { say: json ? null : t(lang, 'not a usable nvidia-smi report ({0}): {1}', '不是可用的 nvidia-smi 报告（{0}）：{1}', result.error.kind, forTerminal(result.error.message)) });
    return result.report;
  },
  json: smiJson,
  text: smiText,
});
