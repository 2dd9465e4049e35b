// A spot box's own word that it is about to be taken back: 阿里云 ECS publishes the termination
// time at its metadata service (instance/spot/termination-time: 404 until a reclaim is
// scheduled, then an ISO time, about 5 minutes ahead). Read from the box with curl, the answer
// bounded and checked as a time (box text). A box without that service (another platform, an
// SSH login anywhere else) answers nothing: the launch stops asking it.
import type { RemoteConnection } from '../../remote/connection';
import { shQuote } from '../../remote/shell';
import { spotTerminationUrl } from '../../remote/guards/watchdog-script';

export type SpotNotice = { kind: 'none' } | { kind: 'noService' } | { kind: 'notice'; at: string };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?$/;

export async function readSpotNotice(conn: Pick<RemoteConnection, 'exec'>, metadataHost?: string, signal?: AbortSignal): Promise<SpotNotice> {
  const url = spotTerminationUrl(metadataHost);
  // The HTTP status on the first line, then at most 200 bytes of body.
  const script = `command -v curl >/dev/null 2>&1 || { echo 000; exit 0; }\nb=$(mktemp) || exit 0\nc=$(curl -s -m 2 -o "$b" -w '%{http_code}' ${shQuote(url)} 2>/dev/null) || c=000\necho "$c"; head -c 200 "$b"; rm -f "$b"`;
  const r = await conn.exec(script, { login: false, timeoutMs: 15000, maxOutputBytes: 4096, ...(signal ? { signal } : {}) });
  const nl = r.stdout.indexOf('\n');
  const code = (nl < 0 ? r.stdout : r.stdout.slice(0, nl)).trim();
  const body = nl < 0 ? '' : r.stdout.slice(nl + 1).trim();
  if (code === '200' && ISO_TIME.test(body)) return { kind: 'notice', at: body };
  if (/^[1-5]\d\d$/.test(code)) return { kind: 'none' };
  return { kind: 'noService' };
}
