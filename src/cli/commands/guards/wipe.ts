// `gpu-rent wipe TARGET DIR`: removes a memory-only upload folder from the box.
import { forTerminalLines } from '../../../core/text';
import { formatBytes } from '../../../core/format';
import { wipeRamDir } from '../../../remote/guards/ramdisk';
import { formatHelp, parseArgs, UsageError } from '../../args';
import { helpLang } from '../../words';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  force: { type: 'boolean', description: 'also remove a folder gpu-rent did not create, or one on disk (never /, your home, or a mount point)' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent wipe TARGET DIR [--force]';
const SUMMARY = `Remove a memory-only upload (made by secure-upload) from the box. On tmpfs the data is gone once the files are deleted; nothing was ever written to disk. ${TARGET_HELP}`;

const SUMMARY_ZH = `从机器上删除只在内存中的上传（由 secure-upload 创建）。在 tmpfs 上文件删除后数据即消失；从来没有写到磁盘。${TARGET_HELP_ZH}`;

export const command: CliCommand = {
  name: 'wipe',
  summary: 'Remove a memory-only upload folder from the box.',
  summaryZh: '从机器上删除只在内存中的上传目录。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 2, positionalNames: 'TARGET DIR' });
    const dir = positionals[1];
    if (!dir) throw new UsageError('expects TARGET and the DIR to wipe on the box');
    return withRemote(positionals[0], flags, io, async (conn) => {
      const r = await wipeRamDir(conn, dir, { force: flags.force === true });
      switch (r.kind) {
        case 'wiped':
          io.stdout(forTerminalLines(`wiped ${r.resolved} (${formatBytes(r.bytes)})\n`));
          return 0;
        case 'absent':
          io.stdout(forTerminalLines(`nothing to wipe: ${dir} does not exist on the box\n`));
          return 0;
        case 'notOurs':
          io.stderr(forTerminalLines(`gpu-rent wipe: ${r.resolved} was not made by gpu-rent secure-upload; add --force to remove it anyway\n`));
          return 1;
        case 'notRam':
          io.stderr(forTerminalLines(`gpu-rent wipe: ${r.resolved} is on ${r.fsType}, not RAM: deleting does not erase it from the disk. Add --force to delete it anyway\n`));
          return 1;
        case 'refused':
          io.stderr(forTerminalLines(`gpu-rent wipe: refusing to remove ${r.resolved || dir} (the root, your home, a top-level folder or a mount point)\n`));
          return 1;
      }
    });
  },
};
