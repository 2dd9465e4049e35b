// `gpu-rent push TARGET --local DIR --remote DIR [--force] [--allow-secrets] [--allow-unscanned] [--json]`: upload
// new and changed files to the rented box, each verified there before it appears.
import { formatBytes } from '../../core/format';
import { forTerminal } from '../../core/text';
import { jsonError } from '../json-error';
import { SCAN_MAX_BYTES } from '../../core/guards/secrets';
import { pushFolder, type PushProgress, type PushReport, type PushSkipReason } from '../../app/push';
import { syncRemote } from '../../app/sync';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand, CliIO } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';

const specs = {
  local: { type: 'string', valueName: 'DIR', description: 'folder on this computer to upload' },
  remote: { type: 'string', valueName: 'DIR', description: 'folder on the box to upload into (created if missing)' },
  force: { type: 'boolean', description: 'also overwrite files on the box that are newer than the local ones' },
  'allow-secrets': { type: 'boolean', description: 'upload even when the secret scan finds likely keys or tokens' },
  'allow-unscanned': { type: 'boolean', description: `upload even when the secret scan stopped at its limit and did not read every file` },
  'scan-limit-mb': { type: 'number', valueName: 'MIB', min: 1, max: 1024 * 1024, integer: true, description: `file content the secret scan reads before it stops (default ${SCAN_MAX_BYTES / 1024 ** 2})` },
  json: { type: 'boolean', description: 'print { files, bytes, skipped, seconds, ... } as JSON' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent push TARGET --local DIR --remote DIR [--force] [--allow-secrets] [--allow-unscanned] [--json]';
const SUMMARY = [
  'Upload new and changed files (datasets, code, weights) to a folder on the rented box. The',
  'local folder is scanned for likely secrets first (the box’s data disk is not encrypted): a',
  'finding stops the push unless --allow-secrets. The scan checks exactly the files push sends',
  '(a --local given as a link is the folder it points to, for both); a scan that stopped at its',
  'limit (--scan-limit-mb) stops the push unless --allow-unscanned. Each file is written on the box as NAME.part,',
  'checked there (size and SHA-256 against what was read here), and only then renamed into place',
  'with the local modification time; an interrupted push resumes from its .part. Files already',
  'on the box with the same size and time are skipped; a file on the box newer than the local',
  'one is never overwritten without --force. Links and names unsafe on the box are listed, not sent.',
  '',
  TARGET_HELP,
  '',
  'Example:',
  '  gpu-rent push mybox --local ./data --remote /root/autodl-tmp/data',
].join('\n');

const REASON_TEXT: Partial<Record<PushSkipReason, string>> = {
  'remote-newer': 'the file on the box is newer (use --force to overwrite)',
  'local-changed': 'changed here during the upload (next push)',
  'remote-conflict': 'a folder or link on the box is in the way',
  'remote-unwritable': 'cannot be written on the box',
  'local-link': 'a link (not followed)',
  excluded: 'left out (flagged by the secret scan)',
  'verify-failed': 'SHA-256 on the box did not match twice',
  'control-char': 'name contains control characters',
  backslash: 'name contains a backslash',
  'reserved-name': "name is reserved for sync's own files",
  'special-file': 'not a regular file',
};

const printable = (name: string) => (/[\x00-\x1f\x7f-\x9f]/.test(name) ? JSON.stringify(name) : name);

/** "the secret scan stopped at its 512 MiB limit of file content after 1200 files: 30 files were not checked" */
function cutText(scan: { truncated: { reason: 'maxFiles' | 'maxBytes'; filesSeen: number; limit: number } | null; unscanned: number }): string {
  const t = scan.truncated!;
  const mib = t.limit % (1024 * 1024) === 0 ? `${t.limit / 1024 / 1024} MiB` : formatBytes(t.limit);
  const limit = t.reason === 'maxBytes' ? `${mib} limit of file content` : `${t.limit}-file limit`;
  return `the secret scan stopped at its ${limit} after ${t.filesSeen} file${t.filesSeen === 1 ? '' : 's'}: ${scan.unscanned} file${scan.unscanned === 1 ? ' was' : 's were'} not checked`;
}

export function pushReportJson(r: PushReport): Record<string, unknown> {
  return { files: r.files, bytes: r.bytes, pushed: r.pushed, unchanged: r.unchanged, skipped: r.skipped, seconds: r.seconds, interrupted: r.interrupted, ...(r.compression ? { compression: r.compression } : {}) };
}

function reportText(r: PushReport): string {
  const lines = r.skipped.map((s) => `skipped ${printable(s.name)}: ${REASON_TEXT[s.reason] ?? s.reason}`);
  const rate = r.seconds > 0 && r.bytes > 0 ? ` (${formatBytes(r.bytes / r.seconds)}/s)` : '';
  const extra = [r.unchanged ? `${r.unchanged} unchanged` : '', r.skipped.length ? `${r.skipped.length} skipped` : ''].filter(Boolean).join(', ');
  lines.push(`${r.interrupted ? 'interrupted: ' : ''}pushed ${r.files} file${r.files === 1 ? '' : 's'}, ${formatBytes(r.bytes)} in ${r.seconds.toFixed(1)} s${rate}${extra ? `; ${extra}` : ''}`);
  return lines.join('\n') + '\n';
}

function progressPrinter(io: CliIO, json: boolean): (p: PushProgress) => void {
  const live = !json && Boolean(process.stderr.isTTY);
  let lastDraw = 0;
  return (p) => {
    if (json) return;
    if (live && p.kind === 'bytes' && p.size > 0 && Date.now() - lastDraw > 500) {
      lastDraw = Date.now();
      io.stderr(`\r\x1b[K${printable(p.name)}  ${Math.floor((p.done / p.size) * 100)}%  ${formatBytes(p.done)} of ${formatBytes(p.size)}`);
    } else if (p.kind === 'file-done') io.stdout(`${live ? '\r\x1b[K' : ''}pushed ${printable(p.name)} (${formatBytes(p.size)}${p.bytes < p.size ? `, resumed: ${formatBytes(p.bytes)} sent` : ''})\n`);
  };
}

export const command: CliCommand = {
  name: 'push',
  summary: 'Upload a folder to a rented box: secret scan first, verified, resumable, only new files.',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    if (!flags.local) throw new UsageError('missing --local DIR (the folder on this computer to upload)');
    if (!flags.remote) throw new UsageError('missing --remote DIR (the folder on the box to upload into)');
    const json = flags.json === true;
    const ac = new AbortController();
    const onSigint = () => {
      if (ac.signal.aborted) process.exit(130);
      io.stderr('stopping: unfinished files stay as .part on the box and resume next time (Ctrl-C again to quit now)\n');
      ac.abort();
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
    try {
      return await withRemote(positionals[0], flags, io, async (conn) => {
        const r = await pushFolder(
          syncRemote(conn),
          {
            localDir: flags.local!,
            remoteDir: flags.remote!,
            force: flags.force === true,
            // What the transfer decided (no gzip on the box, a stream refused): one stderr line each.
            log: (line: string) => io.stderr(`gpu-rent push: ${forTerminal(line)}\n`),
            allowSecrets: flags['allow-secrets'] === true,
            allowUnscanned: flags['allow-unscanned'] === true,
            ...(flags['scan-limit-mb'] !== undefined ? { scanLimits: { maxBytes: flags['scan-limit-mb'] * 1024 * 1024 } } : {}),
            signal: ac.signal,
          },
          progressPrinter(io, json),
        );
        if (r.kind === 'secrets-found') {
          if (json) io.stdout(jsonError('secrets-found', `the secret scan found ${r.findings.length} likely secret${r.findings.length === 1 ? '' : 's'}: nothing was pushed`, { findings: r.findings }));
          else {
            io.stderr(`push stopped: ${r.findings.length} likely secret${r.findings.length === 1 ? '' : 's'} in ${flags.local} (nothing was sent):\n`);
            for (const f of r.findings.slice(0, 50)) io.stderr(`  ${printable(f.path)}${f.line ? `:${f.line}` : ''}  ${f.kind}  ${printable(f.hint)}\n`);
            io.stderr('Move them out of the folder, or run again with --allow-secrets.\n');
            if (r.scan.truncated) io.stderr(`note: ${cutText(r.scan)}\n`);
          }
          return 3;
        }
        if (r.kind === 'scan-incomplete') {
          const t = r.scan.truncated;
          if (json) io.stdout(jsonError('scan-incomplete', `${cutText(r.scan)}: nothing was pushed`, { reason: t.reason, limit: t.limit, filesSeen: t.filesSeen, unscanned: r.scan.unscanned }));
          else {
            io.stderr(`push stopped: ${cutText(r.scan)} (nothing was sent).\n`);
            io.stderr(
              t.reason === 'maxBytes'
                ? 'Raise the limit with --scan-limit-mb MIB, or run again with --allow-unscanned to upload the unchecked files anyway.\n'
                : 'Run again with --allow-unscanned to upload the unchecked files anyway.\n',
            );
          }
          return 3;
        }
        io.stdout(json ? JSON.stringify(pushReportJson(r.report)) + '\n' : reportText(r.report));
        return r.report.interrupted ? 130 : 0;
      });
    } finally {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    }
  },
};
