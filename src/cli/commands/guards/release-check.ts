// `gpu-rent release-check TARGET --remote DIR --local DIR`: before releasing an instance, lists
// the checkpoint files on the box that have no identical local copy. Exit 1 when any would be lost.
import { forTerminalLines } from '../../../core/text';
import { formatBytes } from '../../../core/format';
import { RemoteFolderError } from '../../../remote/sync/list';
import { releaseGuard } from '../../../remote/guards/release-guard';
import { formatHelp, parseArgs, UsageError } from '../../args';
import { helpLang } from '../../words';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  remote: { type: 'string', valueName: 'DIR', description: 'checkpoint folder on the box' },
  local: { type: 'string', valueName: 'DIR', description: 'your local copy (where gpu-rent sync pulls to)' },
  json: { type: 'boolean', description: 'print the report as JSON' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent release-check TARGET --remote DIR --local DIR [--json]';
const SUMMARY = `Before you release an instance (its data disk goes with it): lists checkpoint files on the box with no identical local copy. Exit 0 when nothing would be lost, 1 otherwise. ${TARGET_HELP}`;

const SUMMARY_ZH = `释放实例之前（数据盘会随之删除）：列出机器上在本地没有相同副本的检查点文件。不会丢失任何东西时退出码为 0，否则为 1。${TARGET_HELP_ZH}`;

export const command: CliCommand = {
  name: 'release-check',
  summary: 'Before a release: which checkpoints on the box are not safely copied home.',
  summaryZh: '释放前：机器上哪些检查点还没有安全地拷回本地。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    if (!flags.remote) throw new UsageError('--remote DIR is required (the checkpoint folder on the box)');
    if (!flags.local) throw new UsageError('--local DIR is required (your local copy)');
    return withRemote(positionals[0], flags, io, async (conn) => {
      let r;
      try {
        r = await releaseGuard(conn, flags.remote!, flags.local!);
      } catch (e) {
        if (e instanceof RemoteFolderError) {
          io.stderr(forTerminalLines(`gpu-rent release-check: ${e.message}\n`));
          return 1;
        }
        throw e;
      }
      if (flags.json) {
        io.stdout(JSON.stringify(r, null, 2) + '\n');
      } else {
        const lines: string[] = [];
        if (!r.atRisk.length) lines.push(`safe to release: all ${r.remoteFiles} file${r.remoteFiles === 1 ? '' : 's'} in ${r.remoteRoot} have identical local copies in ${flags.local}`);
        else {
          lines.push(`RELEASING WOULD LOSE ${r.atRisk.length} file${r.atRisk.length === 1 ? '' : 's'} (${formatBytes(r.bytesAtRisk)}) from ${r.remoteRoot}:`);
          for (const f of r.atRisk.slice(0, 50)) lines.push(`  ${f.rel} (${formatBytes(f.size)}, ${f.reason === 'missing' ? 'no local copy' : 'local copy differs'})`);
          if (r.atRisk.length > 50) lines.push(`  … and ${r.atRisk.length - 50} more`);
          lines.push(`pull them first: gpu-rent sync TARGET --remote ${flags.remote} --local ${flags.local}`);
        }
        if (r.unlisted.length) lines.push(`could not list ${r.unlisted.length} folder(s) on the box (${r.unlisted.slice(0, 3).join(', ')}): what they hold is unknown`);
        if (r.skipped.length) lines.push(`${r.skipped.length} name(s) skipped (unsafe names or links out of the folder)`);
        io.stdout(forTerminalLines(lines.join('\n') + '\n'));
      }
      return r.atRisk.length || r.unlisted.length ? 1 : 0;
    });
  },
};
