// Add Storage… / Remove Storage…: a store a task names with `checkpoints.store` or `data.from`
// (NAME/PREFIX). The key goes to SecretStorage only (storeList.ts); after saving, the bucket is
// tested once (put, head, get, delete of a probe object) and the answer shown.
import * as vscode from 'vscode';
import { AUTODL_FS_ROOT, checkBucket, checkEndpoint, checkRegion, checkS3Store, checkStoreName, regionFromEndpoint, serviceOf, type Store } from '../../../core/storage/names';
import { forTerminal } from '../../../core/text';
import { showInfo, showWarning } from '../../notify';
import type { StoreList } from '../../storeList';
import { UserError } from '../../words/errors';
import { isScripted } from '../registry';

const zh = () => /^zh/i.test(vscode.env.language);

function ask(prompt: string, opts: { password?: boolean; value?: string; placeHolder?: string; validate?: (v: string) => string | undefined } = {}): Thenable<string | undefined> {
  return vscode.window.showInputBox({ prompt, password: opts.password, value: opts.value, placeHolder: opts.placeHolder, ignoreFocusOut: true, validateInput: opts.validate });
}

/** Scripted: { name, autodlFs?: true, endpoint, bucket, region?, pathStyle?, keyId, secret, test? } (tests, automation). */
export async function addStorage(stores: StoreList, arg: unknown): Promise<string | undefined> {
  let store: Store;
  let key: { keyId: string; secret: string } | undefined;
  if (isScripted(arg)) {
    const a = arg as { name?: unknown; autodlFs?: unknown; endpoint?: unknown; bucket?: unknown; region?: unknown; pathStyle?: unknown; keyId?: unknown; secret?: unknown };
    if (typeof a.name !== 'string') throw new UserError(vscode.l10n.t('A store needs a name.'));
    if (a.autodlFs === true) {
      const n = checkStoreName(a.name);
      if (!n.ok) throw new UserError(zh() ? n.messageZh : n.message);
      store = { kind: 'autodl-fs', name: n.value };
    } else {
      const c = checkS3Store({ name: a.name, endpoint: String(a.endpoint ?? ''), bucket: String(a.bucket ?? ''), ...(typeof a.region === 'string' ? { region: a.region } : {}), pathStyle: a.pathStyle === true });
      if (!c.ok) throw new UserError(zh() ? c.messageZh : c.message);
      if (typeof a.keyId !== 'string' || typeof a.secret !== 'string' || !a.keyId || !a.secret) throw new UserError(vscode.l10n.t('An S3 store needs its access key id and secret.'));
      store = c.value;
      key = { keyId: a.keyId, secret: a.secret };
    }
  } else {
    const pick = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('S3-compatible bucket'), description: '阿里云 OSS · 腾讯云 COS · MinIO · AWS S3', autodl: false },
        { label: vscode.l10n.t('AutoDL file storage'), description: `${AUTODL_FS_ROOT} · ${vscode.l10n.t('kept after a release, no key')}`, autodl: true },
      ],
      { title: vscode.l10n.t('Add Storage'), placeHolder: vscode.l10n.t('Where should checkpoints and data be kept?'), ignoreFocusOut: true },
    );
    if (!pick) return undefined;
    const name = await ask(vscode.l10n.t('A name for this store (a task names it as NAME/PREFIX)'), {
      value: pick.autodl ? 'autodl-fs' : 'ckpt',
      validate: (v) => {
        const n = checkStoreName(v);
        return n.ok ? undefined : zh() ? n.messageZh : n.message;
      },
    });
    if (!name) return undefined;
    if (pick.autodl) store = { kind: 'autodl-fs', name };
    else {
      const endpoint = await ask(vscode.l10n.t('Endpoint (https://…)'), {
        placeHolder: 'https://s3.oss-cn-hangzhou.aliyuncs.com · https://cos.ap-guangzhou.myqcloud.com',
        validate: (v) => {
          const e = checkEndpoint(v);
          return e.ok ? undefined : zh() ? e.messageZh : e.message;
        },
      });
      if (!endpoint) return undefined;
      const ep = (checkEndpoint(endpoint) as { value: string }).value;
      const service = serviceOf(ep);
      let pathStyle = false;
      if (service === 'other') {
        const style = await vscode.window.showQuickPick(
          [
            { label: vscode.l10n.t('Virtual-hosted (bucket.host: AWS S3 and most services)'), pathStyle: false },
            { label: vscode.l10n.t('Path style (host/bucket: MinIO)'), pathStyle: true },
          ],
          { title: vscode.l10n.t('Add Storage'), ignoreFocusOut: true },
        );
        if (!style) return undefined;
        pathStyle = style.pathStyle;
      }
      const bucket = await ask(vscode.l10n.t('Bucket'), {
        placeHolder: service === 'cos' ? 'name-1250000000' : undefined,
        validate: (v) => {
          const b = checkBucket(v, ep, pathStyle);
          return b.ok ? undefined : zh() ? b.messageZh : b.message;
        },
      });
      if (!bucket) return undefined;
      const region = await ask(vscode.l10n.t('Signing region'), {
        value: regionFromEndpoint(ep) ?? 'us-east-1',
        validate: (v) => {
          const r = checkRegion(v);
          return r.ok ? undefined : zh() ? r.messageZh : r.message;
        },
      });
      if (!region) return undefined;
      const keyId = await ask(vscode.l10n.t('Access key id'));
      if (!keyId) return undefined;
      const secret = await ask(vscode.l10n.t('Secret (kept in the secret store)'), { password: true });
      if (!secret) return undefined;
      const c = checkS3Store({ name, endpoint: ep, bucket, region, pathStyle });
      if (!c.ok) throw new UserError(zh() ? c.messageZh : c.message);
      store = c.value;
      key = { keyId: keyId.trim(), secret: secret.trim() };
    }
  }
  await stores.add(store, key);
  if (store.kind !== 's3' || !key || (isScripted(arg) && (arg as { test?: unknown }).test !== true)) {
    if (!isScripted(arg)) void showInfo(vscode.l10n.t('Added store {0}.', store.name));
    return store.name;
  }
  const { s3Client, probeStore } = await import('../../../app/storage/s3');
  const client = await s3Client(store, key, { maxAttempts: 2 });
  try {
    await probeStore(client, store, '');
    void showInfo(vscode.l10n.t('Added store {0}: a probe object was written, read back and deleted.', store.name));
  } catch (e) {
    const err = e as { message?: string; zh?: string };
    void showWarning(vscode.l10n.t('Added store {0}, but the test failed: {1}', store.name, forTerminal(zh() && err.zh ? err.zh : (err.message ?? String(e)))));
  } finally {
    client.destroy();
  }
  return store.name;
}

export async function removeStorage(stores: StoreList, arg: unknown): Promise<boolean> {
  let name: string | undefined = isScripted(arg) && typeof (arg as { name?: unknown }).name === 'string' ? (arg as { name: string }).name : undefined;
  if (!name) {
    if (!stores.list().length) {
      void showInfo(vscode.l10n.t('No store is saved.'));
      return false;
    }
    const pick = await vscode.window.showQuickPick(
      stores.list().map((s) => ({ label: s.name, description: s.kind === 's3' ? `${s.endpoint} ${s.bucket}` : AUTODL_FS_ROOT })),
      { title: vscode.l10n.t('Remove Storage'), ignoreFocusOut: true },
    );
    name = pick?.label;
  }
  if (!name) return false;
  return stores.remove(name);
}
