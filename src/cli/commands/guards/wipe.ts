// `gpu-rent wipe TARGET DIR`: removes a memory-only upload folder from the box.
import { forTerminalLines } from '../../../core/text';
import { formatBytes } from '../../../core/format';
import { wipeRamDir } from '../../../remote/guards/ramdisk';
import { formatHelp, parseArgs, UsageError } from '../../args';
import { helpLang, t } from '../../words';
import { cliLang } from '../../lang';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  force: { type: 'boolean', description: 'also remove a folder gpu-rent did not create, or one on disk (never /, your home, or a mount point)', zh: '也删除不是 gpu-rent 创建的文件夹或在磁盘上的文件夹（绝不删除 /、你的主目录或挂载点）' },
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
    const lang = cliLang(flags.lang, io.env);
    if (!dir) throw new UsageError('expects TARGET and the DIR to wipe on the box', '需要 TARGET 和机器上要清除的 DIR');
    return withRemote(positionals[0], flags, io, async (conn) => {
      const r = await wipeRamDir(conn, dir, { force: flags.force === true });
      switch (r.kind) {
        case 'wiped':
          io.stdout(forTerminalLines(t(lang, 'wiped {0} ({1})\n', '已清除 {0}（{1}）\n', r.resolved, formatBytes(r.bytes))));
          return 0;
        case 'absent':
          io.stdout(forTerminalLines(t(lang, 'nothing to wipe: {0} does not exist on the box\n', '没有要清除的：机器上不存在 {0}\n', dir)));
          return 0;
        case 'notOurs':
          io.stderr(forTerminalLines(`gpu-rent wipe: ${t(lang, '{0} was not made by gpu-rent secure-upload; add --force to remove it anyway', '{0} 不是 gpu-rent secure-upload 创建的；仍要删除请加 --force', r.resolved)}\n`));
          return 1;
        case 'notRam':
          io.stderr(forTerminalLines(`gpu-rent wipe: ${t(lang, '{0} is on {1}, not RAM: deleting does not erase it from the disk. Add --force to delete it anyway', '{0} 在 {1} 上，不在内存中：删除并不会把它从磁盘上抹掉。仍要删除请加 --force', r.resolved, r.fsType)}\n`));
          return 1;
        case 'refused':
          io.stderr(forTerminalLines(`gpu-rent wipe: ${t(lang, 'refusing to remove {0} (the root, your home, a top-level folder or a mount point)', '拒绝删除 {0}（根目录、你的主目录、顶层文件夹或挂载点）', r.resolved || dir)}\n`));
          return 1;
      }
    });
  },
};
