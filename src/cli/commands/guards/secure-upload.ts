// `gpu-rent secure-upload TARGET FILE... [--to DIR]`: streams files into a RAM-backed folder on
// the box (tmpfs, checked first), so sensitive data never touches the platform's disk.
import { forTerminalLines } from '../../../core/text';
import { formatBytes } from '../../../core/format';
import { DEFAULT_RAM_RESERVE_BYTES } from '../../../core/guards/ramdisk';
import { DEFAULT_RAM_DIR, RamUploadRefused, secureUpload } from '../../../remote/guards/ramdisk';
import { formatHelp, parseArgs, UsageError } from '../../args';
import { helpLang } from '../../words';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  to: { type: 'string', valueName: 'DIR', description: `absolute folder on the box, on tmpfs/ramfs (default ${DEFAULT_RAM_DIR})` },
  'reserve-mb': { type: 'number', valueName: 'MIB', min: 0, max: 1024 * 1024, integer: true, description: `RAM to keep free for the job (default ${DEFAULT_RAM_RESERVE_BYTES / 1024 ** 2})` },
  json: { type: 'boolean', description: 'print what was uploaded as JSON' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent secure-upload TARGET FILE|DIR... [--to /dev/shm/NAME]';
const SUMMARY = `Upload to memory only: files stream over SSH into a tmpfs folder on the box (checked before writing; refused when RAM is short), private to your user. RAM is lost on power-off; remove it sooner with "gpu-rent wipe TARGET DIR". ${TARGET_HELP}`;

const SUMMARY_ZH = `只上传到内存：文件经 SSH 流式写入机器上的 tmpfs 目录（写入前检查；内存不足时拒绝），只有你的用户可访问。关机后内存中的数据丢失；要更早删除请用 "gpu-rent wipe TARGET DIR"。${TARGET_HELP_ZH}`;

export const command: CliCommand = {
  name: 'secure-upload',
  summary: 'Upload sensitive files into RAM (tmpfs) on the box, never onto its disk.',
  summaryZh: '把敏感文件上传到机器的内存（tmpfs），绝不写到磁盘。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs);
    const [target, ...files] = positionals;
    if (!files.length) throw new UsageError('expects TARGET and at least one FILE or DIR to upload');
    const dir = flags.to ?? DEFAULT_RAM_DIR;
    if (!dir.startsWith('/')) throw new UsageError(`--to expects an absolute folder on the box, e.g. /dev/shm/data, got "${dir}"`);
    return withRemote(target, flags, io, async (conn) => {
      try {
        const r = await secureUpload(conn, files, dir, {
          reserveBytes: flags['reserve-mb'] === undefined ? undefined : flags['reserve-mb'] * 1024 ** 2,
          onFile: flags.json ? undefined : (rel, bytes) => io.stderr(`  ${rel} (${formatBytes(bytes)})\n`),
        });
        for (const s of r.skipped) io.stderr(forTerminalLines(`skipped ${s.path}: ${s.reason}\n`));
        if (flags.json) io.stdout(JSON.stringify({ dir: r.dir, fsType: r.target.fsType, files: r.files, bytes: r.bytes, skipped: r.skipped }, null, 2) + '\n');
        else io.stdout(forTerminalLines(`uploaded ${r.files.length} file${r.files.length === 1 ? '' : 's'} (${formatBytes(r.bytes)}) into ${r.dir} (${r.target.fsType}, RAM only)\n`));
        return 0;
      } catch (e) {
        if (e instanceof RamUploadRefused) {
          io.stderr(forTerminalLines(`gpu-rent secure-upload: ${e.message}\n`));
          return 1;
        }
        throw e;
      }
    });
  },
};
