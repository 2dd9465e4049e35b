// The platforms' official SDKs, in one module that is loaded only when a platform account is
// used. The CLI's build keeps it in a bundle of its own (dist/platform-sdks.js, ~4.5 MB of the
// CLI's 6.7 MB) so that every other command starts without reading it; see esbuild.mjs.
import { Readable } from 'node:stream';
import { MAX_REPLY_BYTES, readCapped, ReplyError, tooDeep, tooLarge } from './http';
import { jsonTooDeep } from '../../core/platforms/json';

export * as ecs from '@alicloud/ecs20140526';
export * as bss from '@alicloud/bssopenapi20171214';
export { Config } from '@alicloud/openapi-client';
export { cvm } from 'tencentcloud-sdk-nodejs-cvm';
export { CommonClient } from 'tencentcloud-sdk-nodejs-common';

interface TeaResponse {
  statusCode: number;
  headers: Record<string, string | undefined>;
  body: Readable;
}
type DoAction = ((request: unknown, runtime?: unknown) => Promise<TeaResponse>) & { bounded?: true };

/**
 * 阿里云's SDKs (ecs20140526 7.x and bssopenapi over @alicloud/openapi-core) send every request
 * through @darabonba/typescript's `doAction`, then read the whole body (Stream.readAsJSON) with
 * no limit and no depth check; nothing in their options reaches the socket. So `doAction` is
 * wrapped once, here, where the SDKs are loaded: the reply is read with the same cap as every
 * other platform reply, its JSON depth checked, and handed on as a buffer. The SDK never
 * follows a redirect and reads a 3xx body as a success: a redirect is refused instead.
 */
function boundDarabonba(): void {
  // The module that defines doAction (its package index re-exports it through a getter, so
  // the SDKs' `$dara.doAction` reads this one's live value). A plain require: an import's
  // namespace is read-only.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const core = require('@darabonba/typescript/dist/core') as { doAction: DoAction };
  const original = core.doAction;
  if (typeof original !== 'function') throw new Error('@darabonba/typescript changed: doAction not found where the reply cap wraps it');
  if (original.bounded) return;
  const bounded: DoAction = async (request, runtime) => {
    const r = await original(request, runtime);
    if (r.statusCode >= 300 && r.statusCode < 400) {
      r.body.destroy();
      const where = typeof r.headers.location === 'string' ? ` to ${r.headers.location.slice(0, 200)}` : '';
      throw new ReplyError('RedirectRefused', `the endpoint redirected (HTTP ${r.statusCode})${where}: not followed`);
    }
    const declared = Number(r.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_REPLY_BYTES) {
      r.body.destroy();
      throw tooLarge(MAX_REPLY_BYTES);
    }
    const bytes = await readCapped(r.body);
    if (jsonTooDeep(bytes.toString('utf8'))) throw tooDeep();
    r.body = Readable.from([bytes]);
    return r;
  };
  bounded.bounded = true;
  core.doAction = bounded;
}
boundDarabonba();
