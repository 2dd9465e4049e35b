// `gpu-rent secure-upload TARGET FILE... [--to DIR]`: streams files into a RAM-backed folder on
// the box (tmpfs, checked first), so sensitive data never touches the platform's disk.
import { forTerminalLines } from '../../../core/text';
import { defineCommand } from '../../define';
import { CliFailure } from '../../failure';
import { formatBytes } from '../../../core/format';
import { DEFAULT_RAM_RESERVE_BYTES } from '../../../core/guards/ramdisk';
import { DEFAULT_RAM_DIR, RamUploadRefused, secureUpload } from '../../../remote/guards/ramdisk';
import { UsageError } from '../../args';
import { t } from '../../words';
import type { CliLang } from '../../lang';
import type { RamUploadRefusal } from '../../../core/guards/ramdisk';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  to: { type: 'string', valueName: 'DIR', description: `absolute folder on the box, on tmpfs/ramfs (default ${DEFAULT_RAM_DIR})`, zh: `机器上 tmpfs/ramfs 中的绝对路径文件夹（默认 ${DEFAULT_RAM_DIR}）` },
  'reserve-mb': { type: 'number', valueName: 'MIB', min: 0, max: 1024 * 1024, integer: true, description: `RAM to keep free for the job (default ${DEFAULT_RAM_RESERVE_BYTES / 1024 ** 2})`, zh: `为任务保留的空闲内存（MiB，默认 ${DEFAULT_RAM_RESERVE_BYTES / 1024 ** 2}）` },
  json: { type: 'boolean', description: 'print what was uploaded as JSON', zh: '以 JSON 输出上传了什么' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent secure-upload TARGET FILE|DIR... [--to /dev/shm/NAME]';
const SUMMARY = `Upload to memory only: files stream over SSH into a tmpfs folder on the box (checked before writing; refused when RAM is short), private to your user. RAM is lost on power-off; remove it sooner with "gpu-rent wipe TARGET DIR". ${TARGET_HELP}`;

const SUMMARY_ZH = `只上传到内存：文件经 SSH 流式写入机器上的 tmpfs 目录（写入前检查；内存不足时拒绝），只有你的用户可访问。关机后内存中的数据丢失；要更早删除请用 "gpu-rent wipe TARGET DIR"。${TARGET_HELP_ZH}`;

const mib = (b: number) => `${(b / 1024 ** 2).toFixed(b < 10 * 1024 ** 2 ? 1 : 0)} MiB`;

/** A refusal in Chinese: the extension's sentences (its bundle) for the same refusal. */
function refusalZh(r: RamUploadRefusal, where: string): string {
  const lang: CliLang = 'zh-cn';
  switch (r.kind) {
    case 'notRamBacked':
      return t(lang, 'Refused: {0} is on a {1} file system, not in RAM (tmpfs), so the files would reach the box’s disk. Choose /dev/shm or another tmpfs folder (gpuRent.guards.ramDir).', '已拒绝：{0} 在 {1} 文件系统上，不在内存（tmpfs）中，文件会写到机器的磁盘上。请选 /dev/shm 或其他 tmpfs 文件夹。', where, r.fsType).replace(/（gpuRent\.guards\.ramDir）|\(gpuRent\.guards\.ramDir\)/, '（--to）');
    case 'mountTooSmall':
      return t(lang, 'Refused: the files need {0} but the RAM folder has only {1} free (containers often limit /dev/shm to 64 MiB).', '已拒绝：文件需要 {0}，但内存文件夹只剩 {1}（容器常把 /dev/shm 限制为 64 MiB）。', mib(r.needBytes), mib(r.availableBytes));
    case 'ramShort':
      return t(lang, 'Refused: the files need {0} and {1} must stay free for the job, but the box has only {2} of RAM available.', '已拒绝：文件需要 {0}，还要给任务留出 {1}，但机器只有 {2} 可用内存。', mib(r.needBytes), mib(r.reserveBytes), mib(r.memAvailableBytes));
    case 'memoryUnknown':
      return t(lang, 'Refused: could not read the free memory of the box (/proc/meminfo).', '已拒绝：读不到机器的空闲内存（/proc/meminfo）。');
  }
}

const SKIP_ZH: Record<string, string> = {
  'does not exist': '不存在',
  'cannot be read': '读不了',
  'link to something other than a file': '链接指向的不是文件',
  'broken link': '失效的链接',
  'symbolic link inside a folder': '文件夹里的符号链接',
  'not a regular file': '不是普通文件',
};

type Uploaded = Awaited<ReturnType<typeof secureUpload>>;

export const command: CliCommand = defineCommand({
  name: 'secure-upload',
  summary: 'Upload sensitive files into RAM (tmpfs) on the box, never onto its disk.',
  summaryZh: '把敏感文件上传到机器的内存（tmpfs），绝不写到磁盘。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  run: async (flags, { io, lang, json, positionals }): Promise<Uploaded> => {
    const [target, ...files] = positionals;
    const zh = lang === 'zh-cn';
    if (!files.length) throw new UsageError('expects TARGET and at least one FILE or DIR to upload', '需要 TARGET 和至少一个要上传的 FILE 或 DIR');
    const dir = flags.to ?? DEFAULT_RAM_DIR;
    if (!dir.startsWith('/')) throw new UsageError(`--to expects an absolute folder on the box, e.g. /dev/shm/data, got "${dir}"`, `--to 需要机器上的绝对路径文件夹，例如 /dev/shm/data，却是 "${dir}"`);
    return withRemote(target, flags, io, async (conn) => {
      try {
        const r = await secureUpload(conn, files, dir, {
          reserveBytes: flags['reserve-mb'] === undefined ? undefined : flags['reserve-mb'] * 1024 ** 2,
          onFile: json ? undefined : (rel, bytes) => io.stderr(`  ${rel} (${formatBytes(bytes)})\n`),
        });
        for (const s of r.skipped) io.stderr(forTerminalLines(zh ? `跳过了 ${s.path}：${SKIP_ZH[s.reason] ?? s.reason}\n` : `skipped ${s.path}: ${s.reason}\n`));
        return r;
      } catch (e) {
        // The refusal's kind is the code (not-ram-backed, mount-too-small, ram-short); the message is the English one.
        if (e instanceof RamUploadRefused) throw new CliFailure(e.refusal.kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), e.message, { extra: { refusal: e.refusal }, say: forTerminalLines(zh ? refusalZh(e.refusal, dir) : e.message) });
        throw e;
      }
    });
  },
  json: (r) => ({ dir: r.dir, fsType: r.target.fsType, files: r.files, bytes: r.bytes, skipped: r.skipped }),
  text: (r, lang) =>
    lang === 'zh-cn'
      ? forTerminalLines(`已上传 ${r.files.length} 个文件（${formatBytes(r.bytes)}）到 ${r.dir}（${r.target.fsType}，只在内存中）\n`)
      : forTerminalLines(`uploaded ${r.files.length} file${r.files.length === 1 ? '' : 's'} (${formatBytes(r.bytes)}) into ${r.dir} (${r.target.fsType}, RAM only)\n`),
});
