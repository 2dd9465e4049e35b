// `gpu-rent storage add|list|remove|test|ls|push|pull`: buckets on any S3-compatible service
// (阿里云 OSS, 腾讯云 COS, MinIO, AWS S3) and AutoDL's 文件存储. Keys come from
// GPU_RENT_STORAGE_KEY_ID / GPU_RENT_STORAGE_SECRET (else a prompt without echo) and are kept in
// $GPU_RENT_HOME/stores.json (0600), never printed or logged.
import { configHome } from '../../app/platforms/accountFile';
import { checkKey, publicStore, readStoreFile, writeStoreFile, type SavedStore } from '../../app/storage/stores';
import type { StoreError, TransferEvent } from '../../app/storage/s3';
import { renderTable } from '../../core/format';
import { AUTODL_FS_ROOT, checkS3Store, checkStoreName, parseStoreRef, type S3Store } from '../../core/storage/names';
import { forTerminal } from '../../core/text';
import { UsageError, type FlagSpecs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { defineCommand } from '../define';
import { CliFailure } from '../failure';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { heads, t } from '../words';

const specs = {
  endpoint: { type: 'string', valueName: 'URL', description: 'add: the S3 endpoint, https://… (OSS: https://s3.oss-REGION.aliyuncs.com; COS: https://cos.REGION.myqcloud.com)', zh: 'add：S3 接口地址 https://…（OSS：https://s3.oss-地区.aliyuncs.com；COS：https://cos.地区.myqcloud.com）' },
  bucket: { type: 'string', valueName: 'B', description: 'add: the bucket (COS: name-APPID)', zh: 'add：存储桶（COS：name-APPID）' },
  region: { type: 'string', valueName: 'R', description: 'add: the signing region (default: from an OSS/COS endpoint, else us-east-1)', zh: 'add：签名地区（默认从 OSS/COS 接口地址得出，否则 us-east-1）' },
  'path-style': { type: 'boolean', description: 'add: path-style addressing (MinIO)', zh: 'add：路径方式寻址（MinIO）' },
  'autodl-fs': { type: 'boolean', description: `add: AutoDL's 文件存储 (${AUTODL_FS_ROOT} on the box; survives a release; no key)`, zh: `add：AutoDL 文件存储（box 上的 ${AUTODL_FS_ROOT}；释放后保留；无需密钥）` },
  'no-check': { type: 'boolean', description: 'add: save without the one listing call (a key that may only write)', zh: 'add：不做一次列举检查就保存（只能写入的密钥）' },
  json: { type: 'boolean', description: 'print JSON (failures: {"error": {code, message}})', zh: '以 JSON 输出（失败时：{"error": {code, message}}）' },
  lang: LANG_FLAG_SPEC,
} satisfies FlagSpecs;

const USAGE = 'gpu-rent storage add NAME --endpoint URL --bucket B [--region R] [--path-style] | add NAME --autodl-fs | list | remove NAME | test NAME[/PREFIX] | ls NAME/PREFIX | push NAME/PREFIX PATH | pull NAME/PREFIX DIR';
const SUMMARY = [
  'Stores for checkpoints and data: buckets on any S3-compatible service (阿里云 OSS, 腾讯云 COS, MinIO,',
  `AWS S3) and AutoDL's 文件存储 (${AUTODL_FS_ROOT}). add reads the key from GPU_RENT_STORAGE_KEY_ID and`,
  'GPU_RENT_STORAGE_SECRET (else asks, without echo) and keeps it in $GPU_RENT_HOME/stores.json (mode 0600).',
  'test puts, reads and deletes a small probe object. push and pull are verified by SHA-256 (kept as the',
  "object's x-amz-meta-sha256), skip what is already there with the same hash, and resume: big files go",
  'in parts and a cut push sends only the missing parts. Progress goes to stderr.',
  'The box never gets the key: a launch gives it a grant limited to the run\'s prefix, sizes and time.',
].join('\n');
const SUMMARY_ZH = [
  '存放检查点和数据的存储：任何 S3 兼容服务的存储桶（阿里云 OSS、腾讯云 COS、MinIO、AWS S3）',
  `以及 AutoDL 文件存储（${AUTODL_FS_ROOT}）。add 从 GPU_RENT_STORAGE_KEY_ID 和 GPU_RENT_STORAGE_SECRET`,
  '读取密钥（否则不回显地询问），保存在 $GPU_RENT_HOME/stores.json（权限 0600）。',
  'test 写入、读取并删除一个小探测对象。push 和 pull 用 SHA-256 校验（保存为对象的 x-amz-meta-sha256），',
  '跳过已存在且哈希相同的对象，并可续传：大文件分段上传，中断后只补传缺少的分段。进度输出到 stderr。',
  'box 永远拿不到密钥：启动时只给它限定于本次运行前缀、大小和时间的授权。',
].join('\n');

function fail(lang: CliLang, code: string, en: string, zh: string): CliFailure {
  return new CliFailure(code, en, { say: forTerminal(lang === 'zh-cn' ? zh : en) });
}

/** What a subcommand printed: its text, and under --json its document. */
interface Said {
  text: string;
  doc: unknown;
}

async function findStore(io: CliIO, name: string): Promise<SavedStore | undefined> {
  return (await readStoreFile(configHome(io.env))).find((s) => s.store.name === name);
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  const u = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${u[i]}`;
}

/** Progress lines on stderr: each file's start, at most one line a second while it moves, its end. */
function progressPrinter(io: CliIO, lang: CliLang, verb: 'push' | 'pull'): (e: TransferEvent) => void {
  let last = 0;
  return (e) => {
    const name = forTerminal(e.rel);
    if (e.kind === 'progress') {
      const now = Date.now();
      if (now - last < 1000 || e.done >= e.size) return;
      last = now;
      io.stderr(`  ${name} ${Math.floor((e.done / Math.max(1, e.size)) * 100)}% ${size(e.done)}/${size(e.size)}\n`);
    } else if (e.kind === 'start') io.stderr(`${verb} ${name} (${size(e.size)})\n`);
    else if (e.kind === 'skip') io.stderr(t(lang, 'skip {0}: already there, same SHA-256\n', '跳过 {0}：已存在，SHA-256 相同\n', name));
    else io.stderr(t(lang, 'done {0} ({1}, verified: {2}{3})\n', '完成 {0}（{1}，校验：{2}{3}）\n', name, size(e.size), e.verified, e.resumedParts ? t(lang, ', resumed after {0} parts', '，从第 {0} 段后续传', e.resumedParts) : ''));
  };
}

export const command: CliCommand = defineCommand({
  name: 'storage',
  summary: 'stores for checkpoints and data (OSS, COS, MinIO, S3, AutoDL 文件存储): add, list, test, ls, push, pull',
  summaryZh: '存放检查点和数据的存储（OSS、COS、MinIO、S3、AutoDL 文件存储）：添加、列出、测试、ls、push、pull',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 3, names: 'SUBCOMMAND NAME[/PREFIX] [PATH]' },
  run: async (flags, { io, lang, positionals }): Promise<Said> => {
    const home = configHome(io.env);
    const [sub, ref, path] = positionals;

    if (sub === 'list' || sub === undefined) {
      const all = await readStoreFile(home);
      const doc = all.map(publicStore);
      if (!all.length) {
        return { doc, text: t(lang, 'No store yet. Add one, e.g.:\n  GPU_RENT_STORAGE_KEY_ID=… GPU_RENT_STORAGE_SECRET=… gpu-rent storage add ckpt --endpoint https://s3.oss-cn-hangzhou.aliyuncs.com --bucket my-bucket\n', '还没有存储。可以这样添加，例如：\n  GPU_RENT_STORAGE_KEY_ID=… GPU_RENT_STORAGE_SECRET=… gpu-rent storage add ckpt --endpoint https://s3.oss-cn-hangzhou.aliyuncs.com --bucket my-bucket\n') };
      }
      const head = heads(lang, [['NAME', '名称'], ['KIND', '类型'], ['WHERE', '位置'], ['REGION', '地区']]);
      return { doc, text: renderTable([head, ...all.map((s) => (s.store.kind === 's3' ? [s.store.name, 's3', `${s.store.endpoint} ${s.store.bucket}${s.store.pathStyle ? ' (path-style)' : ''}`, s.store.region] : [s.store.name, 'autodl-fs', AUTODL_FS_ROOT, '']))]) };
    }

    if (sub === 'add') {
      if (!ref) throw new UsageError('add needs a NAME', 'add 需要 NAME');
      if (path) throw new UsageError(`unexpected argument "${path}"`, `多余的参数 "${path}"`);
      let saved: SavedStore;
      if (flags['autodl-fs']) {
        if (flags.endpoint || flags.bucket || flags.region || flags['path-style']) throw new UsageError('--autodl-fs takes no endpoint, bucket or region', '--autodl-fs 不带接口地址、存储桶或地区');
        const n = checkStoreName(ref);
        if (!n.ok) throw new UsageError(n.message, n.messageZh);
        saved = { store: { kind: 'autodl-fs', name: n.value } };
      } else {
        if (!flags.endpoint || !flags.bucket) throw new UsageError('add needs --endpoint URL and --bucket B (or --autodl-fs)', 'add 需要 --endpoint URL 和 --bucket B（或 --autodl-fs）');
        const c = checkS3Store({ name: ref, endpoint: flags.endpoint, bucket: flags.bucket, region: flags.region, pathStyle: flags['path-style'] });
        if (!c.ok) throw new UsageError(c.message, c.messageZh);
        let keyId = io.env.GPU_RENT_STORAGE_KEY_ID ?? '';
        let secret = io.env.GPU_RENT_STORAGE_SECRET ?? '';
        if (!keyId || !secret) {
          const { promptLine } = await import('../remote-common');
          if (!keyId) keyId = (await promptLine(t(lang, 'Access key id: ', 'AccessKey ID：'), false)) ?? '';
          if (keyId && !secret) secret = (await promptLine(t(lang, 'Secret (not shown): ', '密钥（不显示）：'), true)) ?? '';
        }
        if (!keyId || !secret) throw new UsageError('set GPU_RENT_STORAGE_KEY_ID and GPU_RENT_STORAGE_SECRET (or run in a terminal to be asked): the key is never taken from the command line', '请设置 GPU_RENT_STORAGE_KEY_ID 和 GPU_RENT_STORAGE_SECRET（或在终端中运行以便询问）：密钥从不通过命令行传入');
        const k = checkKey(keyId, secret);
        if (!k.ok) throw new UsageError(k.message, '密钥 ID 和密钥须为不含空格的可打印字符');
        saved = { store: c.value, key: k.key };
        if (!flags['no-check']) {
          const { s3Client, listObjects } = await import('../../app/storage/s3');
          try {
            await listObjects(await s3Client(c.value, k.key, { maxAttempts: 2 }), c.value, '', 1);
          } catch (e) {
            const err = e as StoreError;
            throw fail(lang, err.code ?? 'failed', `not saved: ${err.message}`, `未保存：${err.zh ?? err.message}`);
          }
        }
      }
      const file = await readStoreFile(home);
      await writeStoreFile(home, [...file.filter((s) => s.store.name !== saved.store.name), saved]);
      return { doc: publicStore(saved), text: t(lang, 'added store {0} ({1})\n', '已添加存储 {0}（{1}）\n', saved.store.name, saved.store.kind === 's3' ? `${saved.store.endpoint} ${saved.store.bucket}` : AUTODL_FS_ROOT) };
    }

    if (sub === 'remove') {
      if (!ref) throw new UsageError('remove needs a NAME (gpu-rent storage list shows them)', 'remove 需要 NAME（gpu-rent storage list 会列出）');
      const file = await readStoreFile(home);
      if (!file.some((s) => s.store.name === ref)) throw fail(lang, 'not-found', `no store ${ref} in ${home}/stores.json`, `${home}/stores.json 中没有存储 ${ref}`);
      await writeStoreFile(home, file.filter((s) => s.store.name !== ref));
      return { doc: { removed: ref }, text: t(lang, 'removed store {0} and its key\n', '已删除存储 {0} 及其密钥\n', ref) };
    }

    if (!['test', 'ls', 'push', 'pull'].includes(sub)) throw new UsageError(`expects add, list, remove, test, ls, push or pull, got "${sub}"`, `需要 add、list、remove、test、ls、push 或 pull，收到 "${sub}"`);
    if (!ref) throw new UsageError(`${sub} needs NAME/PREFIX`, `${sub} 需要 NAME/PREFIX`);
    const r = parseStoreRef(ref);
    if (!r.ok) throw new UsageError(r.message, r.messageZh);
    const saved = await findStore(io, r.value.name);
    if (!saved) throw fail(lang, 'not-found', `no store ${r.value.name} (gpu-rent storage list shows them)`, `没有存储 ${r.value.name}（gpu-rent storage list 会列出）`);
    if (saved.store.kind !== 's3' || !saved.key) throw fail(lang, 'box-only', `${r.value.name} is AutoDL's 文件存储: a folder on the box (${AUTODL_FS_ROOT}); reach it with gpu-rent push/sync to ${AUTODL_FS_ROOT}/… on an AutoDL box`, `${r.value.name} 是 AutoDL 文件存储：box 上的文件夹（${AUTODL_FS_ROOT}）；请在 AutoDL box 上用 gpu-rent push/sync 到 ${AUTODL_FS_ROOT}/…`);
    const store: S3Store = saved.store;
    const s3 = await import('../../app/storage/s3');
    const client = await s3.s3Client(store, saved.key);
    const prefix = r.value.prefix;
    try {
      if (sub === 'test') {
        if (path) throw new UsageError(`unexpected argument "${path}"`, `多余的参数 "${path}"`);
        const steps = await s3.probeStore(client, store, prefix);
        return {
          doc: { store: store.name, ok: true, steps },
          text: t(lang, '{0}: put, head, get and delete of a probe object under {1} all worked ({2})\n', '{0}：在 {1} 下写入、查看、读取和删除探测对象均成功（{2}）\n', store.name, prefix || '/', steps.map((s) => `${s.step} ${s.ms} ms`).join(', ')),
        };
      }
      if (sub === 'ls') {
        if (path) throw new UsageError(`unexpected argument "${path}"`, `多余的参数 "${path}"`);
        const { objects, truncated } = await s3.listObjects(client, store, prefix);
        const head = heads(lang, [['SIZE', '大小'], ['MODIFIED', '修改时间'], ['KEY', '键']]);
        return {
          doc: { objects, truncated },
          text: renderTable([head, ...objects.map((o) => [size(o.size), o.modified ?? '?', forTerminal(o.key)])]) + (truncated ? t(lang, '(more objects not shown)\n', '（还有更多对象未显示）\n') : ''),
        };
      }
      if (!path) throw new UsageError(sub === 'push' ? 'push needs a PATH (a file or folder)' : 'pull needs a DIR', sub === 'push' ? 'push 需要 PATH（文件或文件夹）' : 'pull 需要 DIR');
      const onEvent = progressPrinter(io, lang, sub === 'push' ? 'push' : 'pull');
      const events = sub === 'push' ? await s3.pushPath(client, store, prefix, path, { home, onEvent }) : await s3.pullPrefix(client, store, prefix, path, { onEvent });
      const done = events.filter((e) => e.kind === 'done');
      const skipped = events.filter((e) => e.kind === 'skip');
      const bytes = done.reduce((a, e) => a + e.size, 0);
      return {
        doc: { store: store.name, prefix, files: events, transferred: done.length, skipped: skipped.length, bytes },
        text: t(lang, '{0}: {1} files sent or fetched ({2}), {3} already there\n', '{0}：传输 {1} 个文件（{2}），{3} 个已存在\n', sub, done.length, size(bytes), skipped.length),
      };
    } catch (e) {
      if (e instanceof UsageError) throw e;
      const err = e as StoreError;
      if (typeof err.code === 'string' && typeof err.zh === 'string') throw fail(lang, err.code, err.message, err.zh);
      throw e;
    } finally {
      client.destroy();
    }
  },
  json: (r) => r.doc,
  text: (r) => r.text,
});
