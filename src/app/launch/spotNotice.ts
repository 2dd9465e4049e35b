// A spot box's own word that it is about to be taken back, read from the box with curl (the
// answers bounded and checked as times: box text):
// - 阿里云 ECS: instance/spot/termination-time at 100.100.100.200, 404 until a reclaim is
//   scheduled, then an ISO UTC time. Read in security hardening mode first (`PUT
//   /latest/api/token` with `X-aliyun-ecs-metadata-token-ttl-seconds`, then the read with
//   `X-aliyun-ecs-metadata-token`): an instance that requires it answers a plain read 403. Where
//   no token is given (normal mode only), the plain read.
// - 腾讯云 CVM: metadata.tencentyun.com/latest/meta-data/spot/termination-time, 404 until a
//   reclaim, then "2018-08-18 12:05:33", the box's time in UTC+8 (the spot-instance page).
// A box where neither service answers (another platform, an SSH login anywhere else) says
// noService: the launch stops asking it.
import type { RemoteConnection } from '../../remote/connection';
import { shQuote } from '../../remote/shell';
import { isoNoticeTime, tencentNoticeTime } from '../../core/platforms/cloudCreate';
import { ALIYUN_METADATA_HOST, metadataBase, spotTerminationUrl, SPOT_TOKEN_PATH, SPOT_TOKEN_TTL_HEADER, SPOT_TOKEN_HEADER, TENCENT_METADATA_HOST, tencentSpotTerminationUrl } from '../../remote/guards/watchdog-script';

/** `at`: the announced time as ISO UTC; `raw`: what the box said; `atEpoch`: epoch seconds. */
export type SpotNotice = { kind: 'none' } | { kind: 'noService' } | { kind: 'notice'; at: string; atEpoch: number; raw: string; cloud: 'aliyun' | 'tencent' };

/** The shell that reads both clouds' notices: one line per cloud, "CLOUD HTTP-STATUS BODY" (body at most 200 bytes, one line). */
export function spotNoticeScript(metadataHost?: string): string {
  const aliBase = metadataBase(metadataHost ?? ALIYUN_METADATA_HOST);
  const ali = spotTerminationUrl(metadataHost ?? ALIYUN_METADATA_HOST);
  const tc = tencentSpotTerminationUrl(metadataHost ?? TENCENT_METADATA_HOST);
  return [
    'command -v curl >/dev/null 2>&1 || { echo none; exit 0; }',
    'b=$(mktemp) || exit 0',
    `c=$(curl -s -m 2 -o "$b" -w '%{http_code}' -X PUT -H ${shQuote(`${SPOT_TOKEN_TTL_HEADER}: 60`)} ${shQuote(aliBase + SPOT_TOKEN_PATH)} 2>/dev/null) || c=000`,
    `t=""; [ "$c" = 200 ] && t=$(head -c 200 "$b" | tr -cd 'A-Za-z0-9._=+/-')`,
    // No answer at all from the address (not an 阿里云 box): no second wait on it.
    `if [ "$c" = 000 ]; then :`,
    `elif [ -n "$t" ]; then : > "$b"; c=$(curl -s -m 2 -o "$b" -w '%{http_code}' -H "${SPOT_TOKEN_HEADER}: $t" ${shQuote(ali)} 2>/dev/null) || c=000`,
    `else : > "$b"; c=$(curl -s -m 2 -o "$b" -w '%{http_code}' ${shQuote(ali)} 2>/dev/null) || c=000; fi`,
    `echo "aliyun $c $(head -c 200 "$b" | tr -d '\\r\\n')"`,
    `: > "$b"; c=$(curl -s -m 2 -o "$b" -w '%{http_code}' ${shQuote(tc)} 2>/dev/null) || c=000`,
    `echo "tencent $c $(head -c 200 "$b" | tr -d '\\r\\n')"`,
    'rm -f "$b"',
  ].join('\n');
}

/** The script's answer → a notice (the first cloud that announces one), none (a service answered), or noService. */
export function parseSpotNotice(stdout: string): SpotNotice {
  let service = false;
  for (const line of stdout.split('\n').slice(0, 4)) {
    const m = /^(aliyun|tencent) (\d{3}) ?(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, cloud, code, body] = m as unknown as [string, 'aliyun' | 'tencent', string, string];
    if (code === '000') continue;
    service = true;
    if (code !== '200') continue;
    const raw = body.trim().slice(0, 64);
    const at = cloud === 'aliyun' ? isoNoticeTime(raw) : tencentNoticeTime(raw);
    if (at !== undefined) return { kind: 'notice', at: new Date(at * 1000).toISOString().replace(/\.000Z$/, 'Z'), atEpoch: at, raw, cloud };
  }
  return service ? { kind: 'none' } : { kind: 'noService' };
}

export async function readSpotNotice(conn: Pick<RemoteConnection, 'exec'>, metadataHost?: string, signal?: AbortSignal): Promise<SpotNotice> {
  const r = await conn.exec(spotNoticeScript(metadataHost), { login: false, timeoutMs: 20000, maxOutputBytes: 4096, ...(signal ? { signal } : {}) });
  return parseSpotNotice(r.stdout);
}
